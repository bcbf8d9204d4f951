/** The text a write tool's result gets about its change's new errors: counted, bounded, one line each. */
import type { DiagnosticsMeta, FileDiagnostic } from '../contract/diagnostics';
import { clipLine, formatDuration } from '../contract/text';

/** One error as the model reads it: `src/a.ts:4:7 error TS2322: Type 'number' is not assignable …`. */
export function diagnosticLine(d: FileDiagnostic, messageMaxBytes: number): string {
  const code = d.code === undefined ? '' : d.source === 'ts' || d.source === 'typescript' ? ` TS${d.code}` : ` [${d.code}]`;
  const message = clipLine(d.message.replace(/\s*\n\s*/g, ' ').trim(), messageMaxBytes);
  return `${d.path}:${d.line}:${d.column} ${d.severity}${code}: ${message}`;
}

/** The appended text ('' when the change added no error and nothing went wrong asking). */
export function reportText(meta: DiagnosticsMeta, o: { maxShown: number; messageMaxBytes: number; timeoutMs: number; waitMs: number }): string {
  const who = meta.servers.join(', ');
  if (meta.state === 'pending') {
    return `Diagnostics pending: the ${who} language server did not answer within ${formatDuration(o.waitMs)} (${meta.note ?? 'it is still starting'}). The check goes on; its result (new errors, or none) comes with a later tool result or the next message.`;
  }
  if (meta.state === 'not-ready') {
    return `Diagnostics not ready: the ${who} language server did not answer within ${formatDuration(o.timeoutMs)} (${meta.note ?? 'it is still starting'}); this change was not checked. Later edits are.`;
  }
  if (meta.state === 'failed') return `Diagnostics unavailable: ${meta.note ?? `the ${who} language server failed`}; this change was not checked. The server restarts on the next edit.`;
  const n = meta.newErrors.length;
  if (n === 0) return '';
  const shown = meta.newErrors.slice(0, o.maxShown);
  const head = `Diagnostics (${who}): ${n} new error${n === 1 ? '' : 's'} (showing ${shown.length}${n > shown.length ? `; ${n - shown.length} more not listed` : ''}):`;
  const before = meta.preexisting ? [`(Not listed: ${meta.preexisting} error${meta.preexisting === 1 ? '' : 's'} already there before this change.)`] : [];
  return [head, ...shown.map((d) => `  ${diagnosticLine(d, o.messageMaxBytes)}`), ...before].join('\n');
}

