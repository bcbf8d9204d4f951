import { StringDecoder } from 'node:string_decoder';
import { formatBytes } from '../contract/text';

/**
 * Batches one stream's live output for the page: at most one event per interval, at most maxBytes
 * of text per event. What does not fit is counted and named in the next event, never buffered,
 * so a command printing gigabytes cannot flood the page or the server's memory.
 */
export class LiveBatcher {
  private decoder = new StringDecoder('utf8');
  private pending = '';
  private pendingBytes = 0;
  private skipped = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly emit: (text: string) => void,
    private readonly intervalMs: number,
    private readonly maxBytes: number,
  ) {}

  push(chunk: Uint8Array): void {
    const room = Math.max(0, this.maxBytes - this.pendingBytes);
    const take = Math.min(room, chunk.length);
    if (take > 0) {
      this.pending += this.decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, take));
      this.pendingBytes += take;
    }
    if (take < chunk.length) {
      // past maxBytes in this interval: counted and named, never kept; a character cut here goes with the rest
      this.skipped += chunk.length - take;
      this.decoder = new StringDecoder('utf8');
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref?.();
    }
  }

  /** Publish what is pending now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let text = this.pending;
    if (this.skipped > 0) {
      text += `${text === '' || text.endsWith('\n') ? '' : '\n'}[… ${formatBytes(this.skipped)} not shown live; the log file has them]\n`;
    }
    this.pending = '';
    this.pendingBytes = 0;
    this.skipped = 0;
    if (text !== '') {
      try {
        this.emit(text);
      } catch {
        // a listener's failure must not break the command
      }
    }
  }

  /** Flush the rest, including a character the decoder still holds. */
  end(): void {
    this.pending += this.decoder.end();
    this.flush();
  }
}
