/**
 * Counting "\n" bytes, which every byte a command prints passes through (the line counts of the
 * truncation notes). A small WebAssembly module compares 16 bytes at a time (SIMD); where
 * WebAssembly SIMD is missing, a four-bytes-at-a-time JavaScript loop does the same count.
 */

const NL = 0x0a;

/** bytes the module counts per call: its first memory page holds them, the second the zero padding */
const PIECE_BYTES = 64 * 1024;
/** below this a plain loop beats copying into the module's memory */
const SMALL_BYTES = 128;

// the module's binary, built from the instructions below (WebAssembly's binary format, SIMD opcodes)
const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
/** signed LEB128, as i32.const takes its operand */
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];
const section = (id: number, bytes: number[]): number[] => [id, ...leb(bytes.length), ...bytes];
const name = (s: string): number[] => vec([...s].map((c) => [c.charCodeAt(0)]));
const simd = (op: number): number[] => [0xfd, ...leb(op)];
const I32 = 0x7f;
const V128 = 0x7b;
const [GET, SET] = [0x20, 0x21];
const [BLOCK, LOOP, END, BR, BR_IF, VOID] = [0x02, 0x03, 0x0b, 0x0c, 0x0d, 0x40];
const [I32_CONST, I32_ADD, I32_LT_U, I32_GE_U, SELECT] = [0x41, 0x6a, 0x49, 0x4f, 0x1b];
const [V128_LOAD, V128_CONST, I8X16_SPLAT, I32X4_EXTRACT_LANE, I8X16_EQ, I8X16_SUB, I16X8_EXTADD_U, I32X4_EXTADD_U] = [0x00, 0x0c, 0x0f, 0x1b, 0x23, 0x71, 0x7d, 0x7f];
/** at most 255 vectors per block: a byte lane adds at most 1 per vector, so none overflows */
const BLOCK_BYTES = 255 * 16;

/**
 * The module: memory (2 pages) and count(n), the newlines among memory[0, n) where the bytes after n
 * up to the next multiple of 16 are zero. Per block, each byte lane of acc counts the newlines seen in
 * it; then the lanes are summed pairwise into four 32-bit lanes that are added to the total.
 */
function moduleBytes(): Uint8Array<ArrayBuffer> {
  // locals: the parameter n, then i, stop, total (i32), acc and sixteen "\n"s (v128)
  const [n, i, stop, total, acc, nls] = [0, 1, 2, 3, 4, 5];
  const body = [
    ...vec([[3, I32], [2, V128]]),
    I32_CONST, ...sleb(NL), ...simd(I8X16_SPLAT), SET, nls,
    BLOCK, VOID,
    LOOP, VOID,
    GET, i, GET, n, I32_GE_U, BR_IF, 1,
    // stop = min(i + BLOCK_BYTES, n)
    GET, i, I32_CONST, ...sleb(BLOCK_BYTES), I32_ADD, SET, stop,
    GET, stop, GET, n, GET, stop, GET, n, I32_LT_U, SELECT, SET, stop,
    ...simd(V128_CONST), ...new Array<number>(16).fill(0), SET, acc,
    LOOP, VOID,
    // acc -= (load(i) == nls): a matching lane is -1
    GET, acc, GET, i, ...simd(V128_LOAD), 4, 0, GET, nls, ...simd(I8X16_EQ), ...simd(I8X16_SUB), SET, acc,
    GET, i, I32_CONST, ...sleb(16), I32_ADD, SET, i,
    GET, i, GET, stop, I32_LT_U, BR_IF, 0,
    END,
    GET, acc, ...simd(I16X8_EXTADD_U), ...simd(I32X4_EXTADD_U), SET, acc,
    GET, total,
    ...[0, 1, 2, 3].flatMap((lane) => [GET, acc, ...simd(I32X4_EXTRACT_LANE), lane, I32_ADD]),
    SET, total,
    BR, 0,
    END,
    END,
    GET, total,
    END,
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 1, I32, 1, I32]])), // one type: (i32) -> i32
    ...section(3, vec([[0]])), // one function of that type
    ...section(5, vec([[0x00, 2]])), // memory: 2 pages
    ...section(7, vec([[...name('count'), 0x00, 0], [...name('memory'), 0x02, 0]])),
    ...section(10, vec([[...leb(body.length), ...body]])),
  ]);
}

interface Counter {
  count(n: number): number;
  memory: Uint8Array;
}

let counter: Counter | null | undefined;

function simdCounter(): Counter | null {
  if (counter !== undefined) return counter;
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes()));
    const exports = instance.exports as { count: (n: number) => number; memory: WebAssembly.Memory };
    counter = { count: exports.count, memory: new Uint8Array(exports.memory.buffer) };
  } catch {
    counter = null;
  }
  return counter;
}

/** Number of "\n" bytes in buf[start, end). */
export function countNewlines(buf: Uint8Array, start = 0, end = buf.length): number {
  if (end - start < SMALL_BYTES) return countLoop(buf, start, end);
  const c = simdCounter();
  if (!c) return countWords(buf, start, end);
  let total = 0;
  for (let at = start; at < end; at += PIECE_BYTES) {
    const len = Math.min(PIECE_BYTES, end - at);
    c.memory.set(buf.subarray(at, at + len));
    c.memory.fill(0, len, len + 16);
    total += c.count(len);
  }
  return total;
}

function countLoop(buf: Uint8Array, start: number, end: number): number {
  let count = 0;
  for (let at = start; at < end; at++) if (buf[at] === NL) count++;
  return count;
}

/**
 * The same count four bytes at a time (SWAR: a lane of x ^ 0x0a0a0a0a is zero where the byte is a
 * newline), summing the per-lane hits in one int for up to 255 words before folding the lanes.
 * Exported for the tests (the path where WebAssembly SIMD is missing).
 */
export function countWords(buf: Uint8Array, start = 0, end = buf.length): number {
  let n = 0;
  let i = start;
  while (i < end && ((buf.byteOffset + i) & 3) !== 0) if (buf[i++] === NL) n++;
  const words = (end - i) >>> 2;
  if (words > 0) {
    const w32 = new Int32Array(buf.buffer, buf.byteOffset + i, words);
    let k = 0;
    while (k < words) {
      const stop = Math.min(words, k + 255);
      let acc = 0;
      for (; k < stop; k++) {
        const x = w32[k] ^ 0x0a0a0a0a;
        // high bit of each lane set exactly when that lane of x is zero; moved to the lane's low bit
        acc += (~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) & 0x80808080) >>> 7;
      }
      n += (acc & 0xff) + ((acc >>> 8) & 0xff) + ((acc >>> 16) & 0xff) + (acc >>> 24);
    }
    i += words << 2;
  }
  return n + countLoop(buf, i, end);
}

/** Whether the SIMD module runs here (the tests check both paths give the same counts). */
export function simdNewlineCounter(): boolean {
  return simdCounter() !== null;
}
