/**
 * Pure helpers that cut text by UTF-8 bytes, never mid-character. They count lines alongside.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** UTF-8 byte length of a string (without Buffer where there is none: the page imports this too). */
export function byteLength(s: string): number {
  if (typeof Buffer !== 'undefined') return Buffer.byteLength(s, 'utf8');
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Number of lines in a string ("" has 0, "a" has 1, "a\n" has 1, "a\nb" has 2). */
export function countLines(s: string): number {
  if (s.length === 0) return 0;
  let n = 0;
  let i = -1;
  while ((i = s.indexOf('\n', i + 1)) !== -1) n++;
  return s.endsWith('\n') ? n : n + 1;
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/**
 * The one UTF-8 cut of a byte prefix: the largest k <= maxBytes (and <= buf.length) such that
 * buf[0..k) does not end inside a character. It judges only the bytes before k, so it also works on
 * a prefix whose next byte is unknown (a captured head). Invalid bytes are cut as they are: it
 * steps back at most 3 bytes.
 */
export function utf8End(buf: Uint8Array, maxBytes: number = buf.length): number {
  const k = Math.max(0, Math.min(buf.length, Math.floor(maxBytes)));
  let j = k;
  while (j > 0 && k - j < 3 && isContinuation(buf[j - 1])) j--;
  if (j === 0) return k;
  const lead = buf[j - 1];
  if (lead < 0xc0) return k;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return k - (j - 1) < need ? j - 1 : k;
}

/** The one UTF-8 cut of a byte suffix: the smallest k >= fromByte where buf[k..) starts on a character (at most 3 bytes on). */
export function utf8Start(buf: Uint8Array, fromByte: number): number {
  const from = Math.max(0, Math.min(buf.length, Math.ceil(fromByte)));
  let k = from;
  while (k < buf.length && k - from < 3 && isContinuation(buf[k])) k++;
  return k;
}

/** UTF-8 bytes as text, dropping a character cut in two at either end (a head and tail of a stream). */
export function decodeCut(buf: Uint8Array, o: { start?: boolean; end?: boolean } = {}): string {
  const from = o.start ? utf8Start(buf, 0) : 0;
  const to = o.end ? utf8End(buf) : buf.length;
  return decoder.decode(buf.subarray(from, Math.max(from, to)));
}

/** The first at most maxBytes bytes of s, cut on a character boundary. */
export function headBytes(s: string, maxBytes: number): string {
  const max = Math.max(0, Math.floor(maxBytes));
  // every UTF-16 unit is at least one byte: the first max units hold the cut (a surrogate split there is dropped by the cut)
  const buf = encoder.encode(s.length > max ? s.slice(0, max) : s);
  if (buf.length <= max && s.length <= max) return s;
  return decoder.decode(buf.subarray(0, utf8End(buf, max)));
}

/** The last at most maxBytes bytes of s, cut on a character boundary. */
export function tailBytes(s: string, maxBytes: number): string {
  const max = Math.max(0, Math.floor(maxBytes));
  const buf = encoder.encode(s.length > max ? s.slice(s.length - max) : s);
  if (buf.length <= max && s.length <= max) return s;
  return decoder.decode(buf.subarray(utf8Start(buf, buf.length - max)));
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
 * The one way to fit a text and its note into a cap: cut(room) makes a cut of at most room bytes
 * (its `text` is what it kept), render(cut) the whole output with the note for that very cut. The
 * note is measured, not guessed: the room is the cap minus the note's length, and the cut is made
 * again when the note made for it is longer (its numbers changed). The result fits in maxBytes
 * (a note longer than the cap alone is cut itself).
 */
export function fitWithNote<C extends { text: string }>(maxBytes: number, cut: (roomBytes: number) => C, render: (c: C) => string): { cut: C; text: string } {
  const cap = Math.max(0, Math.floor(maxBytes));
  let room = cap;
  let c = cut(room);
  let text = render(c);
  for (let attempt = 0; attempt < 6 && byteLength(text) > cap && room > 0; attempt++) {
    const noteBytes = byteLength(text) - byteLength(c.text);
    room = Math.max(0, Math.min(room - 1, cap - noteBytes));
    c = cut(room);
    text = render(c);
  }
  return { cut: c, text: byteLength(text) > cap ? headBytes(text, cap) : text };
}

/**
 * Keep head and tail with the middle marked omitted. headShare is the head's share of maxBytes.
 * The marker itself is counted inside maxBytes.
 */
export function cutHeadTail(s: string, maxBytes: number, headShare = 0.4): Cut {
  const total = byteLength(s);
  if (total <= maxBytes) return cutOf(s, s, s);
  const lines = countLines(s);
  const split = (room: number) => {
    const head = cutHead(s, Math.floor(room * headShare)).text;
    const tail = cutTail(s, room - byteLength(head)).text;
    return { head, tail, text: head + tail };
  };
  const marker = (p: { head: string; tail: string }) => {
    const omittedBytes = total - byteLength(p.head) - byteLength(p.tail);
    const omittedLines = Math.max(0, lines - countLines(p.head) - countLines(p.tail));
    return `${p.head.endsWith('\n') || p.head === '' ? '' : '\n'}… [${formatCount(omittedBytes)} bytes, ${formatCount(omittedLines)} lines omitted] …\n`;
  };
  const fit = fitWithNote(maxBytes, split, (p) => p.head + marker(p) + p.tail);
  return cutOf(s, fit.cut.text, fit.text);
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
  if (n < 10_000) return `${formatCount(n)} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/**
 * Locale-free thousands separators for counts in notes ("12,345", as en-US writes them). Whole numbers are grouped
 * here: Intl's first use (toLocaleString) costs a process ~30 ms of CPU (its number format data), and the tool CLI
 * formats a count in nearly every result.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${digits}` : digits;
}

/**
 * The one duration wording, for every time Clamp shows (timeouts, run times, waits, the page's
 * clocks): "850 ms", "2 s", "2.3 s", "1 m 05 s", "2 m", "2 h 03 m". wholeSeconds: never finer than a
 * second ("0 s", "4 s"), for a clock that ticks.
 */
export function formatDuration(ms: number, o: { wholeSeconds?: boolean } = {}): string {
  const t = Number.isFinite(ms) ? Math.max(0, ms) : 0;
  if (!o.wholeSeconds && Math.round(t) < 1000) return `${Math.round(t)} ms`;
  const tenths = o.wholeSeconds ? Math.floor(t / 1000) * 10 : Math.round(t / 100);
  if (tenths < 600) return `${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)} s`;
  const secs = Math.floor(tenths / 10);
  const two = (n: number) => String(n).padStart(2, '0');
  if (secs < 3600) return secs % 60 === 0 ? `${secs / 60} m` : `${Math.floor(secs / 60)} m ${two(secs % 60)} s`;
  const mins = Math.floor(secs / 60);
  return mins % 60 === 0 ? `${mins / 60} h` : `${Math.floor(mins / 60)} h ${two(mins % 60)} m`;
}
