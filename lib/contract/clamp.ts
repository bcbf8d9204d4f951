import type { ToolResult } from './types';
import { byteLength, cutHead, cutHeadTail, fitWithNote, formatBytes, formatCount, type Cut } from './text';
import { spillOrWhy, type Spilled } from './spill';

/**
 * The one exit clamp: no result reaches the model longer than maxBytes, errors included.
 * The full text is spilled to the data dir and the note says how much was cut and where it lies.
 * A hint survives the cut: it is appended after the note.
 */
export function clampResult(r: ToolResult, maxBytes: number, dataDir: string, label: string, by: 'exit' | 'turn' = 'exit'): ToolResult {
  const total = byteLength(r.output);
  if (total <= maxBytes) return r;
  const spilled: Spilled = r.truncation?.spillPath ? { path: r.truncation.spillPath } : spillOrWhy(dataDir, r.output, label);
  const spillPath = spilled.path;
  const hint = r.hint && !r.output.endsWith(r.hint) ? `\n${r.hint}` : '';
  // a spill the disk refused says so, so the model does not go looking for a file that is not there
  const where = spillPath
    ? ` Full text: ${spillPath} — read it with read_file (offset/limit) or search it with grep.`
    : ` ${spilled.why ? `${spilled.why} ` : ''}Narrow the request to see the rest.`;
  // errors keep head and tail: what failed is often at the end
  const cutTo = (room: number) => {
    const c = r.status === 'ok' ? cutHead(r.output, room) : cutHeadTail(r.output, room);
    return { ...c, text: c.text.endsWith('\n') ? c.text.slice(0, -1) : c.text };
  };
  const noteFor = (c: Cut) =>
    `\n[Output cut at ${formatBytes(c.shownBytes)} of ${formatBytes(total)}` +
    ` (${formatCount(total - c.shownBytes)} bytes, ${formatCount(c.totalLines - c.shownLines)} lines omitted).${where}]`;
  const fit = fitWithNote(maxBytes, cutTo, (c) => c.text + noteFor(c) + hint);
  const cut = fit.cut;
  const omittedLines = cut.totalLines - cut.shownLines;
  return {
    ...r,
    output: fit.text,
    truncation: {
      unit: 'bytes',
      shown: cut.shownBytes,
      total,
      omittedLines,
      spillPath,
      by,
    },
    meta: { ...r.meta, ...(r.truncation ? { toolTruncation: r.truncation } : {}) },
  };
}
