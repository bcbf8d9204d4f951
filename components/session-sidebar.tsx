'use client';

import { useEffect, useRef, useState, type RefObject } from 'react';
import type { SessionSummary } from '@/lib/contract/protocol';
import { usePatchSession, useDeleteSession } from './api';
import { relativeTime } from './format';
import { ExportLinks, ImportButton } from './session-io';
import { WorkspaceSwitcher } from './workspace-switcher';

const iconBtn =
  'rounded px-1 text-xs text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:hover:bg-zinc-800 dark:hover:text-zinc-100';

/** One session: its title, when it changed, its mode and what waits in it; export, rename and delete (after a confirm) on hover or focus. */
function Row({ s, active, onSelect, onDeleted }: { s: SessionSummary; active: boolean; onSelect: () => void; onDeleted: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [title, setTitle] = useState(s.title);
  const inputRef = useRef<HTMLInputElement>(null);
  const patch = usePatchSession();
  const del = useDeleteSession();

  useEffect(() => {
    if (renaming) inputRef.current?.select();
  }, [renaming]);

  const save = () => {
    const t = title.trim();
    setRenaming(false);
    if (t && t !== s.title) patch.mutate({ id: s.id, title: t });
  };
  const cancel = () => {
    setTitle(s.title);
    setRenaming(false);
  };

  if (renaming) return <RenameInput inputRef={inputRef} title={title} onChange={setTitle} onSave={save} onCancel={cancel} />;
  return (
    <li className={`group relative flex items-center rounded ${active ? 'bg-zinc-200/80 dark:bg-zinc-800' : 'hover:bg-zinc-100 dark:hover:bg-zinc-900'}`}>
      <RowButton s={s} active={active} onSelect={onSelect} />
      {confirming ? (
        <span className="flex shrink-0 items-center gap-1 pr-1">
          <button
            type="button"
            className="rounded bg-rose-600 px-1.5 py-0.5 text-[11px] font-medium text-white hover:bg-rose-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
            onClick={() => del.mutate(s.id, { onSuccess: onDeleted })}
            autoFocus
          >
            Delete
          </button>
          <button type="button" className={iconBtn} onClick={() => setConfirming(false)}>
            Keep
          </button>
        </span>
      ) : (
        // over the row's end while hovered or focused, taking no room from its line when hidden
        <span className="absolute inset-y-0 right-0 flex items-center rounded-r pointer-events-none bg-zinc-100 pr-1 pl-1 opacity-0 focus-within:pointer-events-auto focus-within:opacity-100 group-hover:pointer-events-auto group-hover:opacity-100 dark:bg-zinc-900">
          <ExportLinks id={s.id} title={s.title} />
          <button type="button" className={iconBtn} aria-label={`Rename session ${s.title}`} title="Rename" onClick={() => setRenaming(true)}>
            ✎
          </button>
          <button type="button" className={iconBtn} aria-label={`Delete session ${s.title}`} title="Delete" onClick={() => setConfirming(true)}>
            ✕
          </button>
        </span>
      )}
    </li>
  );
}

/** The title being renamed: Enter or leaving the field saves, Esc puts the old title back. */
function RenameInput({ inputRef, title, onChange, onSave, onCancel }: { inputRef: RefObject<HTMLInputElement | null>; title: string; onChange: (t: string) => void; onSave: () => void; onCancel: () => void }) {
  return (
    <li className="px-2 py-1">
      <input
        ref={inputRef}
        value={title}
        aria-label="Session title"
        onChange={(e) => onChange(e.target.value)}
        onBlur={onSave}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onSave();
          if (e.key === 'Escape') onCancel();
        }}
        className="w-full rounded border border-sky-500 bg-white px-1.5 py-0.5 text-sm focus:outline-none dark:bg-zinc-950"
      />
    </li>
  );
}

/** The session's line: its title, then when it changed, its mode and how many calls wait in it. */
function RowButton({ s, active, onSelect }: { s: SessionSummary; active: boolean; onSelect: () => void }) {
  return (
    <button
      type="button"
      onClick={onSelect}
      aria-current={active ? 'true' : undefined}
      className="min-w-0 flex-1 rounded px-2 py-1.5 text-left focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
    >
      <span className="block truncate text-sm text-zinc-900 dark:text-zinc-100">{s.title || 'Untitled'}</span>
      {/* one line: each item whole ("just now" never wraps), the mode giving way first */}
      <span className="flex min-w-0 gap-2 whitespace-nowrap text-[11px] text-zinc-500" data-testid="session-meta">
        <span className="shrink-0">{relativeTime(s.updatedAt)}</span>
        <span className="min-w-0 truncate">{s.mode}</span>
        {s.pendingApprovals > 0 && <span className="shrink-0 font-medium text-amber-700 dark:text-amber-400">{s.pendingApprovals} waiting</span>}
      </span>
    </button>
  );
}

/** What "+ New" makes: a session in the workspace, or on its own worktree (its branch named, or named from the first message). */
export interface NewSessionOptions {
  worktree?: { name?: string };
}

/** The new-session control's option: "in its own worktree", with an optional branch name. */
function WorktreeOption({ on, setOn, branch, setBranch }: { on: boolean; setOn: (v: boolean) => void; branch: string; setBranch: (v: string) => void }) {
  return (
    <div className="space-y-1 px-3 pb-2 text-xs text-zinc-600 dark:text-zinc-400">
      <label className="flex items-center gap-1.5">
        <input type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} />
        New session in its own worktree
      </label>
      {on && (
        <input
          type="text"
          value={branch}
          onChange={(e) => setBranch(e.target.value)}
          placeholder="Branch (default: from the first message)"
          aria-label="Worktree branch name"
          className="block w-full rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs text-zinc-900 focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
        />
      )}
    </div>
  );
}

/** The workspace's sessions: new, switch, rename, delete; above them, the workspace the page works in. */
export function SessionSidebar({
  sessions,
  activeId,
  onSelect,
  onNew,
  creating,
  createError,
}: {
  sessions: SessionSummary[] | undefined;
  activeId: string | null;
  onSelect: (id: string | null) => void;
  onNew: (o: NewSessionOptions) => void;
  creating: boolean;
  /** why the last new session could not be made (a worktree outside git …) */
  createError?: string | null;
}) {
  const [inWorktree, setInWorktree] = useState(false);
  const [branch, setBranch] = useState('');
  return (
    <nav aria-label="Sessions" className="flex h-full w-60 shrink-0 flex-col max-md:w-full border-r border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-950">
      <WorkspaceSwitcher />
      <div className="relative flex items-center gap-1 px-3 py-2">
        <h2 className="mr-auto text-[11px] font-semibold uppercase tracking-wide text-zinc-500">Sessions</h2>
        <ImportButton onImported={(id) => onSelect(id)} />
        <button
          type="button"
          onClick={() => onNew(inWorktree ? { worktree: branch.trim() ? { name: branch.trim() } : {} } : {})}
          disabled={creating}
          title={inWorktree ? 'A new session on its own git worktree and branch' : 'A new session in the workspace'}
          className="rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs font-medium text-zinc-800 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800"
        >
          + New
        </button>
      </div>
      <WorktreeOption on={inWorktree} setOn={setInWorktree} branch={branch} setBranch={setBranch} />
      {createError && (
        <p role="alert" className="mx-3 mb-1 text-xs text-rose-700 dark:text-rose-400">
          {createError}
        </p>
      )}
      <ul className="min-h-0 flex-1 space-y-0.5 overflow-y-auto px-1.5 pb-2">
        {sessions === undefined && <li className="px-2 text-xs text-zinc-500">Loading…</li>}
        {sessions?.length === 0 && <li className="px-2 text-xs text-zinc-500">No sessions yet.</li>}
        {sessions?.map((s) => (
          <Row
            key={s.id}
            s={s}
            active={s.id === activeId}
            onSelect={() => onSelect(s.id)}
            onDeleted={() => {
              if (s.id === activeId) onSelect(sessions.find((x) => x.id !== s.id)?.id ?? null);
            }}
          />
        ))}
      </ul>
    </nav>
  );
}
