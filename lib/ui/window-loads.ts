import type { FilePage } from '@/lib/contract/viewer';
import { PAGE_BYTES } from './file-page';
import { appendPage, emptyWindow, fromTail, lineIndexAt, tailRequest, type LineWindow } from './line-window';

/**
 * The viewer's loading jobs that move its window of lines (the scrolling ones are in usePagedLines):
 * plain async steps over a page fetcher, committing windows as they arrive.
 */

/** a log up to this size opens whole (with line numbers); a bigger one opens on its last page */
const OPEN_WHOLE_MAX_BYTES = 4 * 1024 * 1024;

/** One page of the source: `limit` bytes from `offset`. */
export type GetPage = (offset: number, limit: number) => Promise<FilePage>;

/** What a job does with a window: show it in place, or replace the list with it (opening there). */
export interface WindowSink {
  commit(w: LineWindow): void;
  replace(w: LineWindow, at: 'start' | 'end' | number): void;
}

/** Load pages below `w` through the end of the file, showing each; a window already at the end is shown as it is. */
async function loadWhole(w: LineWindow, get: GetPage, sink: WindowSink): Promise<LineWindow> {
  sink.commit(w);
  while (!w.eof) {
    w = appendPage(w, await get(w.endOffset, PAGE_BYTES));
    sink.commit(w);
  }
  return w;
}

/** Open a task log at its end: whole when it is small, else its last page (the numbers above it unknown). */
export async function openAtEnd(get: GetPage, sink: WindowSink): Promise<void> {
  const head = await get(0, PAGE_BYTES);
  if (head.eof || head.totalBytes <= OPEN_WHOLE_MAX_BYTES) {
    await loadWhole(appendPage(emptyWindow(), head), get, sink);
    return;
  }
  const t = tailRequest(head.totalBytes, PAGE_BYTES);
  sink.replace(fromTail(await get(t.offset, t.limit)), 'end');
}

/** Reach the end from `cur`: by loading the rest when little is left (then onDone), else by a window of the last page. */
export async function toEndFrom(cur: LineWindow, get: GetPage, sink: WindowSink, onDone: () => void): Promise<void> {
  if (cur.loaded && cur.eof) return onDone();
  if (cur.loaded && cur.totalBytes - cur.endOffset <= 2 * PAGE_BYTES) {
    await loadWhole(cur, get, sink);
    onDone();
    return;
  }
  const head = cur.loaded ? cur : appendPage(emptyWindow(), await get(0, PAGE_BYTES));
  const t = tailRequest(head.totalBytes, PAGE_BYTES);
  sink.replace(fromTail(await get(t.offset, t.limit)), 'end');
}

/** A window loaded around the line that begins at byte `offset`, replacing the list with that line in its middle. */
export async function windowAround(offset: number, line: number, get: GetPage, sink: WindowSink): Promise<void> {
  // half a page above the line, so it lands in the middle with lines around it
  let w = appendPage(emptyWindow(), await get(Math.max(0, offset - PAGE_BYTES / 2), PAGE_BYTES));
  while (!w.eof && w.endOffset <= offset) w = appendPage(w, await get(w.endOffset, PAGE_BYTES));
  sink.replace(w, lineIndexAt(w, offset, line) ?? 'start');
}
