'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { WorkspaceEntry, WorkspaceOpenAnswer, WorkspacesAnswer } from '@/lib/contract/workspace';
import { pageWorkspace, workspaceHref } from '@/lib/ui/workspace';
import { fetchJson } from './api';

const WORKSPACES_KEY = ['workspaces'] as const;

/** The folder's last two names, for a short label (the whole path is its title). */
function folderName(p: string): string {
  return p.split('/').filter(Boolean).slice(-2).join('/') || p;
}

/** Go to the page of a workspace: the whole page reloads in it (its sessions, board, rules and memories). */
function go(w: WorkspaceEntry): void {
  window.location.assign(workspaceHref(w.isDefault ? null : w.path));
}

/** The open workspaces, the current one marked; each opens its sessions. */
function WorkspaceList({ list, current }: { list: WorkspaceEntry[]; current: string | undefined }) {
  return (
    <ul className="space-y-0.5" aria-label="Recent workspaces">
      {list.map((w) => (
        <li key={w.path}>
          <button
            type="button"
            onClick={() => go(w)}
            aria-current={w.path === current ? 'true' : undefined}
            title={w.path}
            className={`block w-full truncate rounded px-2 py-1 text-left text-xs focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 ${w.path === current ? 'bg-zinc-200 font-medium dark:bg-zinc-800' : 'hover:bg-zinc-100 dark:hover:bg-zinc-900'}`}
          >
            {folderName(w.path)}
            <span className="ml-1 text-zinc-500">
              {w.sessions} session{w.sessions === 1 ? '' : 's'}
              {w.isDefault ? ' · default' : ''}
            </span>
            <span className="block truncate text-[10px] text-zinc-500">{w.path}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Open another folder by its path: checked by the server, whose error says what is wrong. */
function OpenFolder() {
  const [text, setText] = useState('');
  const open = useMutation({
    mutationFn: (p: string) => fetchJson<WorkspaceOpenAnswer>('/api/workspaces', { method: 'POST', body: JSON.stringify({ path: p }) }),
    onSuccess: (r) => go(r.workspace),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim()) open.mutate(text.trim());
  };
  return (
    <form onSubmit={submit} className="mt-2 space-y-1">
      <div className="flex gap-1">
        <input
          type="text"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="/path/to/folder or ~/folder"
          aria-label="Folder to open"
          className="min-w-0 flex-1 rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs text-zinc-900 focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
        />
        <button type="submit" disabled={open.isPending || !text.trim()} className="rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs font-medium hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800">
          Open
        </button>
      </div>
      {open.error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {open.error.message}
        </p>
      )}
    </form>
  );
}

/** The sidebar's workspace control: the folder the page works in; opens the recent ones or another folder. */
export function WorkspaceSwitcher() {
  const [openMenu, setOpenMenu] = useState(false);
  const list = useQuery({ queryKey: WORKSPACES_KEY, queryFn: () => fetchJson<WorkspacesAnswer>('/api/workspaces') });
  const all = list.data?.workspaces ?? [];
  const named = pageWorkspace();
  const current = named ?? all.find((w) => w.isDefault)?.path;
  return (
    <div className="border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
      <button
        type="button"
        onClick={() => setOpenMenu((v) => !v)}
        aria-expanded={openMenu}
        aria-label="Workspace"
        title={current}
        className="flex w-full items-center gap-1 truncate rounded text-left text-xs font-medium text-zinc-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:text-zinc-100"
        data-testid="workspace-current"
      >
        <span className="shrink-0 text-[11px] font-semibold uppercase tracking-wide text-zinc-500">Workspace</span>
        <span className="truncate">{current ? folderName(current) : 'Workspace'}</span>
        <span className="ml-auto text-zinc-500" aria-hidden>
          {openMenu ? '▴' : '▾'}
        </span>
      </button>
      {openMenu && (
        <div className="mt-2" data-testid="workspace-menu">
          {list.error && <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">{list.error.message}</p>}
          <WorkspaceList list={all} current={current} />
          <OpenFolder />
        </div>
      )}
    </div>
  );
}
