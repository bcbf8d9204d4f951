import fs from 'node:fs';
import path from 'node:path';
import type { FilePage } from '../contract/viewer';
import { BUDGET } from '../contract/budget';
import { utf8End } from '../contract/text';
import { isInside, outputRoots } from '../policy/workspace';
import { removedNote } from '../store/retention-journal';
import { getTaskManager, type TaskInfo } from '../tasks/manager';
import { HttpError } from './http';
import { lineNumbers } from './line-index';

/**
 * Resolve a viewer path: only spilled outputs and command logs (the folders read tools may read too),
 * never the rest of the data dir (API keys, the approval signing secret, the database).
 */
export function viewerPath(dataDir: string, p: string): string {
  if (!p || p.includes('\0')) throw new HttpError(400, 'Give the file to show in ?path=.');
  let real: string;
  try {
    real = fs.realpathSync.native(path.resolve(dataDir, p));
  } catch {
    const removed = removedNote(dataDir, path.resolve(dataDir, p));
    throw new HttpError(404, removed ?? `File not found: ${p}. Spilled outputs and logs are kept in the data dir; it may have been removed.`);
  }
  const roots = outputRoots(dataDir).map((r) => {
    try {
      return fs.realpathSync.native(r);
    } catch {
      return r;
    }
  });
  if (!roots.some((r) => isInside(r, real) && real !== r)) throw new HttpError(403, 'Only spilled outputs and task logs in the data dir can be shown.');
  return real;
}

/**
 * One page of a file, cut on line boundaries: from offset (moved forward to the next line start when it
 * falls inside a line) up to limit bytes, ending after the last whole line unless the file ends first;
 * with the number of its first line and the file's line count (lib/server/line-index.ts). Memory is
 * bounded by the page size whatever the file's size.
 */
export function readFilePage(file: string, offset: number, limit: number): FilePage {
  const want = Math.max(1, Math.min(limit, BUDGET.FILE_PAGE_MAX_BYTES));
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    const size = st.size;
    let start = Math.max(0, Math.min(offset, size));
    if (start > 0 && start < size) {
      // land on a line start: skip the rest of a line we were dropped into
      const probe = Buffer.alloc(1);
      fs.readSync(fd, probe, 0, 1, start - 1);
      if (probe[0] !== 0x0a) {
        const look = Buffer.alloc(Math.min(64 * 1024, size - start));
        const n = fs.readSync(fd, look, 0, look.length, start);
        const nl = look.subarray(0, n).indexOf(0x0a);
        if (nl !== -1) start += nl + 1;
      }
    }
    const buf = Buffer.alloc(Math.min(want, size - start));
    const n = fs.readSync(fd, buf, 0, buf.length, start);
    let end = n;
    const eof = start + n >= size;
    if (!eof) {
      const nl = buf.subarray(0, n).lastIndexOf(0x0a);
      if (nl !== -1) end = nl + 1;
      else end = utf8End(buf.subarray(0, n)); // one huge line: cut on a character boundary
    }
    const { firstLine, totalLines } = lineNumbers(file, fd, st, start, size);
    return { path: file, text: buf.subarray(0, end).toString('utf8'), offset: start, nextOffset: start + end, totalBytes: size, eof: start + end >= size, firstLine, totalLines };
  } finally {
    fs.closeSync(fd);
  }
}

/** Parse ?offset=&limit= with defaults; 400 on nonsense. */
export function pageParams(url: URL): { offset: number; limit: number } {
  const num = (name: string, dflt: number) => {
    const v = url.searchParams.get(name);
    if (v === null || v === '') return dflt;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new HttpError(400, `?${name}= must be a whole number of bytes, not ${v}.`);
    return n;
  };
  return { offset: num('offset', 0), limit: num('limit', BUDGET.FILE_PAGE_DEFAULT_BYTES) };
}

const LOG_STREAMS = ['combined', 'stdout', 'stderr'] as const;
type LogStream = (typeof LOG_STREAMS)[number];

/** The log file of a task that ?stream= names (combined, stdout or stderr; by default the combined log when it exists), or HttpError 404/400. */
export function taskLogFile(dataDir: string, id: string, url: URL): string {
  const task: TaskInfo | undefined = getTaskManager(dataDir).get(id);
  if (!task) throw new HttpError(404, `Task ${id} not found.`);
  const asked = url.searchParams.get('stream');
  if (asked !== null && !(LOG_STREAMS as readonly string[]).includes(asked)) throw new HttpError(400, `?stream= is one of ${LOG_STREAMS.join(', ')}.`);
  const stream: LogStream = (asked as LogStream | null) ?? (fs.existsSync(task.combinedLogPath) ? 'combined' : 'stdout');
  const file = stream === 'combined' ? task.combinedLogPath : task.logPaths[stream];
  if (!fs.existsSync(file)) throw new HttpError(404, `Task ${id} has no ${stream} log on disk (it could not be written).`);
  return file;
}
