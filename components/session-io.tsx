'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { BUDGET } from '@/lib/contract/budget';
import type { SessionAnswer } from '@/lib/contract/rest';
import { formatBytes } from '@/lib/contract/text';
import { fetchJson, queryKeys } from './api';

const linkBtn = 'rounded px-1 text-xs text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:hover:bg-zinc-800 dark:hover:text-zinc-100';

/** A session's two downloads: JSON (importable, every message) and Markdown (for people). */
export function ExportLinks({ id, title }: { id: string; title: string }) {
  const base = `/api/sessions/${encodeURIComponent(id)}/export`;
  return (
    <>
      <a href={`${base}?format=json`} download className={linkBtn} aria-label={`Export session ${title} as JSON`} title="Export as JSON (importable)">
        json
      </a>
      <a href={`${base}?format=md`} download className={linkBtn} aria-label={`Export session ${title} as Markdown`} title="Export as Markdown">
        md
      </a>
    </>
  );
}

/** Import a JSON export as a new session; the server's error (not an export, too big, a bad field) is shown as it says it. */
export function ImportButton({ onImported }: { onImported: (id: string) => void }) {
  const qc = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = async (file: File) => {
    setError(null);
    if (file.size > BUDGET.SESSION_IMPORT_MAX_BYTES) return setError(`${file.name} is ${formatBytes(file.size)}; an import may be at most ${formatBytes(BUDGET.SESSION_IMPORT_MAX_BYTES)}.`);
    setBusy(true);
    try {
      const text = await file.text();
      const { session } = await fetchJson<SessionAnswer>('/api/sessions/import', { method: 'POST', body: text });
      await qc.invalidateQueries({ queryKey: queryKeys.sessions });
      onImported(session.id);
    } catch (err) {
      setError(`${file.name}: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <input ref={input} type="file" accept="application/json,.json" hidden aria-label="Import a session (JSON export)" onChange={(e) => {
        const f = e.target.files?.[0];
        e.target.value = '';
        if (f) void load(f);
      }} />
      <button type="button" disabled={busy} onClick={() => input.current?.click()} title="Import a session from a JSON export" className="rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs font-medium text-zinc-800 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800">
        Import
      </button>
      {error && (
        <p role="alert" data-testid="import-error" className="absolute left-2 right-2 top-9 z-10 rounded border border-rose-200 bg-rose-50 px-2 py-1 text-xs text-rose-900 dark:border-rose-900 dark:bg-rose-950 dark:text-rose-200">
          {error}{' '}
          <button type="button" aria-label="Dismiss" onClick={() => setError(null)} className="underline">
            dismiss
          </button>
        </p>
      )}
    </>
  );
}
