/**
 * The source of grep's scan worker, as plain JavaScript that a worker thread evaluates (eval: true),
 * so it runs the same under tsx, vitest and the server's bundle, with no file to locate at runtime.
 * It does per file exactly what scan.ts's scanFile does (test/tools/grep-workers.test.ts holds the
 * two to the same answers): open the file by name through its folder, held open and checked to be where the
 * walk found it (as confined-fs.ts openInHeldFolder does), read with one size check, the literal prefilter, the binary sniff, the
 * whole-file test, then the per-line test.
 *
 * A job: { id, files: string[], spec: ScanSpec, maxFileBytes, sniffBytes, maxTextBytes }.
 * The answer: { id, results } with one entry per file: 0 no match, 1 over the size cap, 2 unreadable,
 * 3 not scanned here (the batch's text budget was spent: the caller scans it itself), or
 * [binary: boolean, text: string, hits: number[]].
 */
export const SCAN_WORKER_SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const FIRST_READ_BYTES = 64 * 1024;
const LINUX = process.platform === 'linux';
const O_PATH = 0o10000000;
const C = fs.constants;
const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK | (C.O_NOCTTY || 0);
let buf = null;
// this process's descriptors, as confined-fs.ts procFdDir finds them (a worker shares the process's descriptors)
let fdDir = null;
function procFdDir() {
  if (fdDir === null) {
    let self = '';
    try {
      self = fs.readlinkSync('/proc/self');
    } catch {}
    fdDir = self === String(process.pid) ? '/proc/' + process.pid + '/fd/' : '/proc/self/fd/';
  }
  return fdDir;
}
// the folder of the last file, held open: its files are opened by name through it (confined-fs.ts openInHeldFolder)
let held = null;

function release() {
  if (held && held.fd >= 0) fs.closeSync(held.fd);
  held = null;
}

function openChecked(abs) {
  if (!LINUX) return fs.openSync(abs, READ_FLAGS);
  const slash = abs.lastIndexOf('/');
  const dir = slash <= 0 ? '/' : abs.slice(0, slash);
  if (!held || held.abs !== dir) {
    release();
    held = { abs: dir, fd: -1 };
    try {
      const fd = fs.openSync(dir, O_PATH | C.O_NOFOLLOW | C.O_DIRECTORY);
      let real = null;
      try {
        real = fs.readlinkSync(procFdDir() + fd);
      } catch {}
      if (real === dir) held.fd = fd;
      else fs.closeSync(fd);
    } catch {}
  }
  if (held.fd < 0) throw new Error('folder not held');
  return fs.openSync(procFdDir() + held.fd + '/' + abs.slice(slash + 1), READ_FLAGS);
}
const compiled = new Map();

function compile(spec) {
  const key = JSON.stringify(spec);
  let c = compiled.get(key);
  if (c) return c;
  const re = spec.regex === null ? null : new RegExp(spec.regex, spec.flags);
  const inc = spec.includes;
  c = {
    testLine: re ? (l) => re.test(l) : (l) => l.includes(inc),
    literalBytes: spec.literalBytes === null ? null : Buffer.from(spec.literalBytes, 'utf8'),
    wholeText: spec.whole === null ? null : new RegExp(spec.whole, spec.wholeFlags),
  };
  if (compiled.size > 32) compiled.clear();
  compiled.set(key, c);
  return c;
}

function scan(abs, p, maxFileBytes, sniffBytes) {
  let fd;
  try {
    fd = openChecked(abs);
  } catch {
    return 2;
  }
  let n = 0;
  try {
    const first = Math.min(FIRST_READ_BYTES, maxFileBytes + 1);
    if (!buf || buf.length < first) buf = Buffer.allocUnsafe(first);
    n = fs.readSync(fd, buf, 0, first, 0);
    if (n > maxFileBytes) return 1;
    if (n === first) {
      const size = fs.fstatSync(fd).size;
      if (size > maxFileBytes) return 1;
      if (buf.length < size) {
        const grown = Buffer.allocUnsafe(size);
        buf.copy(grown, 0, 0, n);
        buf = grown;
      }
      while (n < size) {
        const r = fs.readSync(fd, buf, n, size - n, n);
        if (r === 0) break;
        n += r;
      }
    }
  } catch {
    return 2;
  } finally {
    fs.closeSync(fd);
  }
  if (n === 0) return 0;
  const b = buf.subarray(0, n);
  if (p.literalBytes && b.indexOf(p.literalBytes) === -1) return 0;
  const binary = b.subarray(0, Math.min(n, sniffBytes)).indexOf(0) !== -1;
  let text = b.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (p.wholeText && !p.wholeText.test(text)) return 0;
  const hits = [];
  let ln = 0;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    ln++;
    const line = text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end);
    if (p.testLine(line)) hits.push(ln);
    start = end + 1;
  }
  if (hits.length === 0) return 0;
  return [binary, text, hits];
}

parentPort.on('message', (job) => {
  const p = compile(job.spec);
  const results = [];
  let textBytes = 0;
  for (const f of job.files) {
    if (textBytes > job.maxTextBytes) {
      results.push(3);
      continue;
    }
    const r = scan(f, p, job.maxFileBytes, job.sniffBytes);
    if (typeof r !== 'number') textBytes += r[1].length;
    results.push(r);
  }
  release();
  parentPort.postMessage({ id: job.id, results });
});
`;
