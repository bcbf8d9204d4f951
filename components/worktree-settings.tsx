'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { WorktreeSettings as Settings, WorktreeSettingsBody } from '@/lib/contract/worktree';
import { fetchJson } from './api';
import { btnCls } from './modal';

const KEY = ['worktree-settings'] as const;
const URL = '/api/settings/worktrees';

const inputCls =
  'mt-1 block w-full rounded border border-zinc-300 bg-white px-2 py-1 font-mono text-xs text-zinc-900 focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100';

function WorktreeForm({ v }: { v: Settings }) {
  const qc = useQueryClient();
  const [folder, setFolder] = useState(v.folder ?? '');
  const [copy, setCopy] = useState(v.copy.join('\n'));
  const save = useMutation({
    mutationFn: (body: WorktreeSettingsBody) => fetchJson<Settings>(URL, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    onSuccess: (s) => qc.setQueryData(KEY, s),
  });
  const body = { folder: folder.trim() || null, copy: copy.split('\n').map((l) => l.trim()).filter(Boolean) };
  return (
    <form
      className="space-y-2 text-xs text-zinc-600 dark:text-zinc-400"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(body);
      }}
    >
      <label className="block">
        Folder new worktrees go in (empty: the data dir&apos;s worktrees folder)
        <input type="text" value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="/absolute/path" className={inputCls} />
      </label>
      <label className="block">
        Files copied into a new worktree, one gitignore-style pattern a line (besides those a .worktreeinclude names)
        <textarea value={copy} onChange={(e) => setCopy(e.target.value)} rows={2} className={inputCls} />
      </label>
      <button type="submit" className={btnCls} disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save worktree settings'}
      </button>
      {save.error && <p className="text-rose-700 dark:text-rose-400">{save.error.message}</p>}
      {save.isSuccess && <p className="text-emerald-700 dark:text-emerald-400">Saved: new worktrees use these.</p>}
    </form>
  );
}

/** Worktrees: the folder they go in and the files copied into a new one. */
export function WorktreeSettings() {
  const view = useQuery({ queryKey: KEY, queryFn: () => fetchJson<Settings>(URL) });
  return (
    <section aria-labelledby="worktrees-h" className="space-y-2" data-settings-worktrees>
      <h3 id="worktrees-h" className="text-sm font-semibold">
        Worktrees
      </h3>
      {view.error && <p className="text-xs text-rose-700">{view.error.message}</p>}
      {view.data ? <WorktreeForm v={view.data} /> : !view.error && <p className="text-xs text-zinc-500">Loading…</p>}
    </section>
  );
}
