'use client';

import type { DiagnosticsMeta } from '@/lib/contract/diagnostics';
import { formatDuration } from './format';

/** The card header's word on a change's diagnostics: its new errors, or that there are none, or why none were checked. */
export function DiagnosticsBadge({ d }: { d: DiagnosticsMeta }) {
  const n = d.newErrors.length;
  const [text, cls, title] =
    d.state === 'pending'
      ? ['checking…', 'bg-sky-50 text-sky-800 dark:bg-sky-950 dark:text-sky-300', `The ${d.servers.join(', ')} language server had not answered when the result went back (${d.note ?? 'starting'}); its diagnostics show here when they arrive.`]
      : d.state === 'not-ready'
      ? ['diagnostics not ready', 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300', `The ${d.servers.join(', ')} language server did not answer in time (${d.note ?? 'starting'}); this change was not checked.`]
      : d.state === 'failed'
        ? ['diagnostics unavailable', 'bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300', d.note ?? 'The language server failed.']
        : n > 0
          ? [`${n} new error${n === 1 ? '' : 's'}`, 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-300', `Checked by ${d.servers.join(', ')} in ${formatDuration(d.durationMs)}`]
          : ['no new errors', 'bg-emerald-50 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300', `Checked by ${d.servers.join(', ')} in ${formatDuration(d.durationMs)}${d.preexisting ? `; ${d.preexisting} error(s) were already there` : ''}`];
  return (
    <span data-diagnostics={d.state} className={`shrink-0 rounded px-1 text-[11px] ${cls}`} title={title}>
      {text}
    </span>
  );
}

/** The card body's list of a change's new errors (all of them; the model saw the first `shown`). */
export function DiagnosticsList({ d }: { d: DiagnosticsMeta }) {
  if (d.state === 'pending') return <p className="text-xs text-zinc-500">Diagnostics pending: the {d.servers.join(', ')} language server is {d.note?.replace(/^it is /, '') ?? 'still starting'}; the new errors of this change show here when they arrive, and the model reads them with a later result or the next message.</p>;
  if (d.state === 'not-ready') return <p className="text-xs text-zinc-500">Diagnostics not ready: the {d.servers.join(', ')} language server did not answer in time ({d.note ?? 'starting'}); this change was not checked.</p>;
  if (d.state === 'failed') return <p className="text-xs text-zinc-500">Diagnostics unavailable: {d.note ?? 'the language server failed'}; this change was not checked.</p>;
  if (d.newErrors.length === 0) return null;
  return (
    <div className="text-xs" data-diagnostics-list>
      <p className="font-medium text-rose-700 dark:text-rose-400">
        {d.newErrors.length} new error{d.newErrors.length === 1 ? '' : 's'} ({d.servers.join(', ')}
        {d.shown < d.newErrors.length ? `; the model was shown ${d.shown}` : ''}
        {d.preexisting ? `; ${d.preexisting} already there before not listed` : ''})
      </p>
      <ul className="mt-1 space-y-0.5 font-mono">
        {d.newErrors.map((e, i) => (
          <li key={`${e.path}:${e.line}:${e.column}:${i}`} className="break-words">
            <span className="text-zinc-500">
              {e.path}:{e.line}:{e.column}
            </span>{' '}
            {e.code !== undefined && <span className="text-zinc-500">{e.source === 'ts' ? `TS${e.code}` : `[${e.code}]`} </span>}
            {e.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
