/**
 * Binary detection for the file tools: a magic number, a NUL byte in the sniffed head, or a known
 * binary extension whose head is not valid UTF-8. The answer is a type name for the error text
 * ("PNG image"), or null for text.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Extensions that are binary formats; the name is what the error text shows. */
const BINARY_EXTENSIONS: Readonly<Record<string, string>> = {
  png: 'PNG image', jpg: 'JPEG image', jpeg: 'JPEG image', gif: 'GIF image', webp: 'WebP image',
  bmp: 'BMP image', ico: 'ICO image', tif: 'TIFF image', tiff: 'TIFF image', avif: 'AVIF image',
  heic: 'HEIC image', psd: 'Photoshop image',
  zip: 'ZIP archive', gz: 'gzip archive', tgz: 'gzip archive', bz2: 'bzip2 archive', xz: 'xz archive',
  '7z': '7-Zip archive', rar: 'RAR archive', tar: 'tar archive', zst: 'Zstandard archive',
  jar: 'Java archive', war: 'Java archive', apk: 'Android package',
  exe: 'Windows executable', dll: 'Windows library', so: 'shared library', dylib: 'shared library',
  o: 'object file', a: 'static library', obj: 'object file', class: 'Java class file',
  wasm: 'WebAssembly module', pyc: 'Python bytecode', node: 'Node.js native addon',
  mp3: 'MP3 audio', wav: 'WAV audio', flac: 'FLAC audio', ogg: 'Ogg media', m4a: 'MPEG-4 audio',
  mp4: 'MP4 video', mov: 'QuickTime video', avi: 'AVI video', mkv: 'Matroska video', webm: 'WebM video',
  ttf: 'TrueType font', otf: 'OpenType font', woff: 'WOFF font', woff2: 'WOFF2 font', eot: 'EOT font',
  pdf: 'PDF document', doc: 'Word document', docx: 'Word document', xls: 'Excel workbook',
  xlsx: 'Excel workbook', ppt: 'PowerPoint presentation', pptx: 'PowerPoint presentation',
  sqlite: 'SQLite database', sqlite3: 'SQLite database', bin: 'binary data',
};

/** Formats that are ZIP inside; the extension names them better than "ZIP archive". */
const ZIP_FAMILY = new Set(['jar', 'war', 'apk', 'docx', 'xlsx', 'pptx']);

function startsWith(head: Uint8Array, sig: readonly number[] | string, at = 0): boolean {
  const bytes = typeof sig === 'string' ? Array.from(sig, (c) => c.charCodeAt(0)) : sig;
  if (head.length < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (head[at + i] !== bytes[i]) return false;
  return true;
}

/** The type named by a magic number at the start of head, or null. */
function magicType(head: Uint8Array, ext: string): string | null {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'PNG image';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'JPEG image';
  if (startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a')) return 'GIF image';
  if (startsWith(head, 'RIFF')) {
    if (startsWith(head, 'WEBP', 8)) return 'WebP image';
    if (startsWith(head, 'WAVE', 8)) return 'WAV audio';
    if (startsWith(head, 'AVI ', 8)) return 'AVI video';
  }
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return 'TIFF image';
  if (startsWith(head, '%PDF-')) return 'PDF document';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) {
    return ZIP_FAMILY.has(ext) ? BINARY_EXTENSIONS[ext] : 'ZIP archive';
  }
  if (startsWith(head, [0x1f, 0x8b])) return 'gzip archive';
  if (startsWith(head, 'BZh')) return 'bzip2 archive';
  if (startsWith(head, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return 'xz archive';
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return '7-Zip archive';
  if (startsWith(head, [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07])) return 'RAR archive';
  if (startsWith(head, [0x28, 0xb5, 0x2f, 0xfd])) return 'Zstandard archive';
  if (startsWith(head, 'ustar', 257)) return 'tar archive';
  if (startsWith(head, [0x7f, 0x45, 0x4c, 0x46])) return 'ELF executable';
  if ([[0xfe, 0xed, 0xfa, 0xce], [0xfe, 0xed, 0xfa, 0xcf], [0xce, 0xfa, 0xed, 0xfe], [0xcf, 0xfa, 0xed, 0xfe]].some((m) => startsWith(head, m))) {
    return 'Mach-O executable';
  }
  if (startsWith(head, [0xca, 0xfe, 0xba, 0xbe])) return ext === 'class' ? 'Java class file' : 'Mach-O universal binary';
  if (startsWith(head, [0x00, 0x61, 0x73, 0x6d])) return 'WebAssembly module';
  if (startsWith(head, 'SQLite format 3\0')) return 'SQLite database';
  if (startsWith(head, 'OggS')) return 'Ogg media';
  if (startsWith(head, 'fLaC')) return 'FLAC audio';
  if (startsWith(head, 'ID3')) return 'MP3 audio';
  if (startsWith(head, 'ftyp', 4)) return BINARY_EXTENSIONS[ext] ?? 'MPEG-4 media';
  if (startsWith(head, 'wOFF')) return 'WOFF font';
  if (startsWith(head, 'wOF2')) return 'WOFF2 font';
  if (startsWith(head, 'OTTO')) return 'OpenType font';
  // UTF-16 text is full of NULs; naming it beats calling it "binary data"
  if (startsWith(head, [0xff, 0xfe]) || startsWith(head, [0xfe, 0xff])) return 'UTF-16 text';
  return null;
}

function isValidUtf8(head: Uint8Array): boolean {
  try {
    // stream: true lets the sniffed head end mid-character without counting as invalid
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The binary type of a file from its leading bytes and its name, or null when it reads as text.
 * A known binary extension only counts when the head is not valid UTF-8 (a Git LFS pointer
 * named photo.png is text). An empty head is text.
 */
export function binaryType(head: Uint8Array, fileName: string): string | null {
  if (head.length === 0) return null;
  const ext = path.extname(fileName).slice(1).toLowerCase();
  const magic = magicType(head, ext);
  if (magic) return magic;
  const known = Object.hasOwn(BINARY_EXTENSIONS, ext) ? BINARY_EXTENSIONS[ext] : undefined;
  if (head.includes(0)) {
    if (startsWith(head, 'MZ')) return 'Windows executable';
    return known ?? 'binary data';
  }
  if (known && !isValidUtf8(head)) return known;
  return null;
}

/** Read at most sniffBytes from the start of an open file and classify it; reads nothing more. */
export async function sniffBinary(fh: fs.promises.FileHandle, fileName: string, sniffBytes: number): Promise<string | null> {
  const buf = Buffer.alloc(Math.max(0, sniffBytes));
  const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
  return binaryType(buf.subarray(0, bytesRead), fileName);
}

/** Open a file by absolute path, sniff it (see binaryType) and close it. */
export async function sniffBinaryFile(abs: string, sniffBytes: number): Promise<string | null> {
  const fh = await fs.promises.open(abs, 'r');
  try {
    return await sniffBinary(fh, path.basename(abs), sniffBytes);
  } finally {
    await fh.close();
  }
}
