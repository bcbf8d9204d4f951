/**
 * Pure helpers that cut text by UTF-8 bytes, never mid-character. They count lines alongside.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** UTF-8 byte length of a string. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Number of lines in a string ("" has 0, "a" has 1, "a\n" has 1, "a\nb" has 2). */
export function countLines(s: string): number {
  if (s.length === 0) return 0;
  let n = 0;
  let i = -1;
  while ((i = s.indexOf('\n', i + 1)) !== -1) n++;
  return s.endsWith('\n') ? n : n + 1;
}

/** Largest index k <= maxBytes such that buf[0..k) ends on a character boundary. */
function headBoundary(buf: Uint8Array, maxBytes: number): number {
  if (maxBytes >= buf.length) return buf.length;
  let k = Math.max(0, maxBytes);
  // step back over continuation bytes (10xxxxxx) so we never split a character
  while (k > 0 && (buf[k] & 0xc0) === 0x80) k--;
  return k;
}

/** Smallest index k >= buf.length - maxBytes such that buf[k..) starts on a character boundary. */
function tailBoundary(buf: Uint8Array, maxBytes: number): number {
  if (maxBytes >= buf.length) return 0;
  let k = buf.length - Math.max(0, maxBytes);
  while (k < buf.length && (buf[k] & 0xc0) === 0x80) k++;
  return k;
}

/** The first at most maxBytes bytes of s, cut on a character boundary. */
export function headBytes(s: string, maxBytes: number): string {
  const buf = encoder.encode(s);
  if (buf.length <= maxBytes) return s;
  return decoder.decode(buf.subarray(0, headBoundary(buf, maxBytes)));
}

/** The last at most maxBytes bytes of s, cut on a character boundary. */
export function tailBytes(s: string, maxBytes: number): string {
  const buf = encoder.encode(s);
  if (buf.length <= maxBytes) return s;
  return decoder.decode(buf.subarray(tailBoundary(buf, maxBytes)));
}

export interface Cut {
  text: string;
  /** bytes kept / total, and lines kept / total */
  shownBytes: number;
  totalBytes: number;
  shownLines: number;
  totalLines: number;
  cut: boolean;
}

function cutOf(original: string, kept: string, text: string): Cut {
  const totalBytes = byteLength(original);
  const shownBytes = byteLength(kept);
  return {
    text,
    shownBytes,
    totalBytes,
    shownLines: countLines(kept),
    totalLines: countLines(original),
    cut: shownBytes < totalBytes,
  };
}

/** Keep the head; prefer to end on a whole line when one fits in the last quarter. */
export function cutHead(s: string, maxBytes: number): Cut {
  let kept = headBytes(s, maxBytes);
  if (kept.length < s.length) {
    const nl = kept.lastIndexOf('\n');
    if (nl > kept.length * 0.75) kept = kept.slice(0, nl + 1);
  }
  return cutOf(s, kept, kept);
}

/** Keep the tail; prefer to start on a whole line when one fits in the first quarter. */
export function cutTail(s: string, maxBytes: number): Cut {
  let kept = tailBytes(s, maxBytes);
  if (kept.length < s.length) {
    const nl = kept.indexOf('\n');
    if (nl !== -1 && nl < kept.length * 0.25) kept = kept.slice(nl + 1);
  }
  return cutOf(s, kept, kept);
}

/**
 * Keep head and tail with the middle marked omitted. headShare is the head's share of maxBytes.
 * The marker itself is counted inside maxBytes.
 */
export function cutHeadTail(s: string, maxBytes: number, headShare = 0.4): Cut {
  const total = byteLength(s);
  if (total <= maxBytes) return cutOf(s, s, s);
  const markerReserve = 80;
  const room = Math.max(0, maxBytes - markerReserve);
  const head = cutHead(s, Math.floor(room * headShare)).text;
  const tail = cutTail(s, room - byteLength(head)).text;
  const omittedBytes = total - byteLength(head) - byteLength(tail);
  const omittedLines = Math.max(0, countLines(s) - countLines(head) - countLines(tail));
  const marker = `${head.endsWith('\n') || head === '' ? '' : '\n'}… [${omittedBytes.toLocaleString('en-US')} bytes, ${omittedLines.toLocaleString('en-US')} lines omitted] …\n`;
  const text = head + marker + tail;
  const c = cutOf(s, head + tail, text);
  return c;
}

/** Cut one line to maxBytes with a marker saying how much was cut. */
export function clipLine(line: string, maxBytes: number): string {
  const total = byteLength(line);
  if (total <= maxBytes) return line;
  const kept = headBytes(line, maxBytes);
  return `${kept}… [line cut: ${total - byteLength(kept)} more bytes]`;
}

/** Format a byte count for notes: exact below 10 KB, else KB/MB with one decimal. */
export function formatBytes(n: number): string {
  if (n < 10_000) return `${n.toLocaleString('en-US')} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** Locale-free thousands separators for counts in notes. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
