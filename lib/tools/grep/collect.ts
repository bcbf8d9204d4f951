/**
 * The steps of a search that both its threads share, in path order: the walk's checks before a file
 * is read, and adding one scanned file to the result (engine.ts on the main thread, parallel.ts for
 * the answers of the worker threads).
 */
import type { IgnoreRules } from './ignore';
import { note, renderContent, type OutLine, type Scan } from './scan';
import type { WalkFile } from './walk';
import type { SearchRequest, SearchResult } from './engine';

/** The walk's checks before a file is read: include, then the visit limit. 'stop' sets res.stop. */
export function admit(req: SearchRequest, res: SearchResult, rules: IgnoreRules | null, f: WalkFile): 'skip' | 'stop' | 'scan' {
  if (req.include && rules && !req.include(f.rel, f.relToStart, f.name)) {
    res.notIncluded++;
    return 'skip';
  }
  if (res.filesVisited >= req.maxFilesVisited) {
    res.stop = { reason: 'files', at: f.rel };
    return 'stop';
  }
  res.filesVisited++;
  return 'scan';
}

/** Add one scanned file to the result, in path order; true when the search stops here (res.stop says why). */
export function take(req: SearchRequest, res: SearchResult, f: WalkFile, scan: Scan): boolean {
  if (scan.kind === 'oversize') {
    note(res.oversize, f.rel);
    return false;
  }
  if (scan.kind === 'unreadable') {
    note(res.unreadable, f.rel);
    return false;
  }
  res.filesSearched++;
  if (scan.kind === 'none') return false;
  if (scan.kind === 'binary') {
    note(res.binary, f.rel);
    return false;
  }
  res.matches += scan.hits.length;
  res.filesWithMatches++;
  const quota = req.maxEntries - res.shown;
  const rendered: OutLine[] =
    quota === 0 ? []
    : req.mode === 'content' ? renderContent(f.rel, scan, quota, req, res.lines.length === 0)
    : [{ text: req.mode === 'count' ? `${f.rel}:${scan.hits.length}` : f.rel, match: true }];
  const entries = req.mode === 'content' ? scan.hits.length : 1;
  let added = 0;
  for (const l of rendered) {
    const bytes = Buffer.byteLength(l.text) + 1;
    if (res.outputBytes + bytes > req.maxOutputBytes) {
      res.stop = { reason: 'bytes', at: f.rel };
      break;
    }
    res.lines.push(l.text);
    res.isMatch.push(l.match);
    res.outputBytes += bytes;
    if (l.match) added++;
  }
  res.shown += added;
  if (res.stop) {
    if (res.lines[res.lines.length - 1] === '--') {
      res.lines.pop();
      res.isMatch.pop();
    }
    return true;
  }
  if (entries > quota) {
    res.stop = { reason: 'entries', at: f.rel };
    return true;
  }
  return false;
}
