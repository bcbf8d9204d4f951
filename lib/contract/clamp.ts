import type { ToolResult } from './types';
import { byteLength, cutHead, cutHeadTail, formatBytes, formatCount } from './text';
import { spillText } from './spill';

/**
 * The one exit clamp: no result reaches the model longer than maxBytes, errors included.
 * The full text is spilled to the data dir and the note says how much was cut and where it lies.
 * A hint survives the cut: it is appended after the note.
 */
export function clampResult(r: ToolResult, maxBytes: number, dataDir: string, label: string, by: 'exit' | 'turn' = 'exit'): ToolResult {
  const total = byteLength(r.output);
  if (total <= maxBytes) return r;
  const spillPath = r.truncation?.spillPath ?? spillText(dataDir, r.output, label);
  const hint = r.hint && !r.output.endsWith(r.hint) ? `\n${r.hint}` : '';
  const reserve = 360 + byteLength(hint) + (spillPath ? byteLength(spillPath) : 0);
  const room = Math.max(0, maxBytes - reserve);
  // errors keep head and tail: what failed is often at the end
  const cut = r.status === 'ok' ? cutHead(r.output, room) : cutHeadTail(r.output, room);
  const omittedLines = cut.totalLines - cut.shownLines;
  const where = spillPath
    ? ` Full text: ${spillPath} — read it with read_file (offset/limit) or search it with grep.`
    : ' Narrow the request to see the rest.';
  const note =
    `\n[Output cut at ${formatBytes(cut.shownBytes)} of ${formatBytes(total)}` +
    ` (${formatCount(total - cut.shownBytes)} bytes, ${formatCount(omittedLines)} lines omitted).${where}]`;
  const body = cut.text.endsWith('\n') ? cut.text.slice(0, -1) : cut.text;
  return {
    ...r,
    output: body + note + hint,
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
