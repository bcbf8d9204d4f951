import { StringDecoder } from 'node:string_decoder';
import { formatBytes } from '../contract/text';

/**
 * Batches one stream's live output for the page: at most one event per interval, at most maxBytes
 * of text per event. What does not fit is counted and named in the next event, never buffered,
 * so a command printing gigabytes cannot flood the page or the server's memory.
 */
export class LiveBatcher {
  private decoder = new StringDecoder('utf8');
  /** the decoder was given bytes since it was made (it may hold part of a character) */
  private decoderUsed = false;
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
      this.decoderUsed = true;
    }
    if (take < chunk.length) {
      // past maxBytes in this interval: counted and named, never kept; a character cut here goes with the
      // rest (a decoder given nothing since the last cut holds no part of one, and is kept)
      this.skipped += chunk.length - take;
      if (this.decoderUsed) {
        this.decoder = new StringDecoder('utf8');
        this.decoderUsed = false;
      }
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
