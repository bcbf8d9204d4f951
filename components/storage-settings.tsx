'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { CleanupAnswer, CleanupReport, RetentionBody, StorageAnswer, StorageKind } from '@/lib/contract/storage';
import { formatBytes, formatCount } from '@/lib/contract/text';
import { fetchJson } from './api';
import { btnCls } from './modal';

const KEY = ['storage'] as const;
const URL = '/api/settings/storage';

const KIND_TEXT: Record<StorageKind, string> = {
  logs: 'Command logs',
  spills: 'Spilled outputs',
  checkpoints: 'Checkpoints',
  database: 'Database (with its backups)',
  worktrees: 'Worktrees',
  other: 'Other (scratch, settings …)',
};

const inputCls =
  'ml-2 w-24 rounded border border-zinc-300 bg-white px-2 py-0.5 font-mono text-xs text-zinc-900 focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100';

/** What a clean-up removed, in one sentence. */
function cleanupText(r: CleanupReport): string {
  const ck = r.checkpoints;
  const parts = [`${formatCount(r.removedFiles)} log and spill file(s) removed (${formatBytes(r.freedBytes)})`];
  if (ck.repositories > 0 || ck.refsDropped > 0) parts.push(`checkpoints: ${ck.repositories} repositor${ck.repositories === 1 ? 'y' : 'ies'} collected, ${formatBytes(ck.freedBytes)} freed`);
  if (r.skippedLive > 0) parts.push(`${formatCount(r.skippedLive)} kept because a command still writes them`);
  if (ck.errors.length > 0) parts.push(`failed: ${ck.errors.join('; ')}`);
  return `${parts.join('; ')}.`;
}

function SizeTable({ v }: { v: StorageAnswer }) {
  return (
    <table className="w-full text-xs" data-storage-table>
      <tbody>
        {v.kinds.map((k) => (
          <tr key={k.kind} data-storage-kind={k.kind} data-bytes={k.bytes} className="border-b border-zinc-100 dark:border-zinc-800">
            <td className="py-0.5">{KIND_TEXT[k.kind]}</td>
            <td className="py-0.5 text-right font-mono text-zinc-500">{k.files === 1 ? '1 file' : `${formatCount(k.files)} files`}</td>
            <td className="py-0.5 text-right font-mono">{formatBytes(k.bytes)}</td>
          </tr>
        ))}
        <tr data-storage-kind="total" data-bytes={v.totalBytes} className="font-semibold">
          <td className="py-0.5">Total</td>
          <td />
          <td className="py-0.5 text-right font-mono">{formatBytes(v.totalBytes)}</td>
        </tr>
      </tbody>
    </table>
  );
}

function RetentionForm({ v }: { v: StorageAnswer }) {
  const qc = useQueryClient();
  const [days, setDays] = useState(String(v.retention.maxAgeDays));
  const [mib, setMib] = useState(String(v.retention.outputsMaxMegabytes));
  const save = useMutation({
    mutationFn: (body: RetentionBody) => fetchJson<StorageAnswer>(URL, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    onSuccess: (s) => qc.setQueryData(KEY, s),
  });
  const clean = useMutation({
    mutationFn: () => fetchJson<CleanupAnswer>(`${URL}/cleanup`, { method: 'POST' }),
    onSuccess: (a) => qc.setQueryData(KEY, a.storage),
  });
  return (
    <div className="space-y-2 text-xs text-zinc-600 dark:text-zinc-400">
      <div className="flex flex-wrap items-center gap-3">
        <label>
          Keep logs and spills (days)
          <input type="number" min={1} value={days} onChange={(e) => setDays(e.target.value)} className={inputCls} data-retention-days />
        </label>
        <label>
          at most (MiB)
          <input type="number" min={1} value={mib} onChange={(e) => setMib(e.target.value)} className={inputCls} data-retention-mib />
        </label>
        <button type="button" className={btnCls} disabled={save.isPending} onClick={() => save.mutate({ maxAgeDays: Number(days), outputsMaxMegabytes: Number(mib) })}>
          {save.isPending ? 'Saving…' : 'Save data dir settings'}
        </button>
        <button type="button" className={btnCls} disabled={clean.isPending} onClick={() => clean.mutate()} data-cleanup-now>
          {clean.isPending ? 'Cleaning up…' : 'Clean up now'}
        </button>
      </div>
      {save.error && <p className="text-rose-700 dark:text-rose-400">{save.error.message}</p>}
      {save.isSuccess && !clean.data && <p className="text-emerald-700 dark:text-emerald-400">Saved: the next clean-up (hourly, or now) uses these.</p>}
      {clean.error && <p className="text-rose-700 dark:text-rose-400">{clean.error.message}</p>}
      {clean.data ? (
        <p className="text-emerald-700 dark:text-emerald-400" data-cleanup-result>
          Cleaned up: {cleanupText(clean.data.report)}
        </p>
      ) : (
        v.lastCleanup && <p className="text-zinc-500">Last clean-up {new Date(v.lastCleanup.at).toLocaleString()}: {cleanupText(v.lastCleanup)}</p>
      )}
    </div>
  );
}

/** The data dir: its size by kind, how long logs and spills are kept and their budget, and Clean up now. */
export function StorageSettings() {
  const view = useQuery({ queryKey: KEY, queryFn: () => fetchJson<StorageAnswer>(URL) });
  const v = view.data;
  return (
    <section aria-labelledby="storage-h" className="space-y-2" data-settings-storage>
      <h3 id="storage-h" className="text-sm font-semibold">
        Data dir
      </h3>
      {view.error && <p className="text-xs text-rose-700">{view.error.message}</p>}
      {!v && !view.error && <p className="text-xs text-zinc-500">Loading…</p>}
      {v && (
        <>
          <p className="truncate font-mono text-xs text-zinc-500" title={v.dataDir}>
            {v.dataDir}
          </p>
          <SizeTable v={v} />
          <RetentionForm v={v} />
        </>
      )}
    </section>
  );
}
