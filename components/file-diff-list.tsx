'use client';

import { useState, type ReactNode } from 'react';
import type { FileChange } from './checkpoint-api';
import { DiffView, diffStats } from './diff-view';

export interface DiffFile {
  path: string;
  change: FileChange;
  binary: boolean;
  diff: string;
  additions?: number;
  deletions?: number;
}

const CHANGE_LABEL: Record<FileChange, string> = { added: 'added', modified: 'modified', deleted: 'deleted', mode: 'mode', type: 'type' };
const CHANGE_CLS: Record<FileChange, string> = {
  added: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  modified: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300',
  deleted: 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-300',
  mode: 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300',
  type: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
};

/** A file's change as a small badge (added, modified, deleted, mode, type). */
export function ChangeBadge({ change }: { change: FileChange }) {
  return <span className={`shrink-0 rounded px-1 text-[11px] font-medium ${CHANGE_CLS[change] ?? CHANGE_CLS.modified}`}>{CHANGE_LABEL[change] ?? change}</span>;
}

function FileRow({ file, open: openAtFirst, lead, actions, below }: { file: DiffFile; open: boolean; lead?: ReactNode; actions?: ReactNode; below?: ReactNode }) {
  const [open, setOpen] = useState(openAtFirst);
  const counted = file.additions === undefined ? diffStats(file.diff) : { added: file.additions, removed: file.deletions ?? 0 };
  return (
    <li className="rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900" data-file={file.path}>
      <div className="flex flex-wrap items-center gap-2 px-2 py-1.5">
        {lead}
        <button
          type="button"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
          className="flex min-w-0 flex-1 items-center gap-2 text-left focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
        >
          <span aria-hidden="true" className="w-3 text-[10px] text-zinc-400">{open ? '▾' : '▸'}</span>
          <span className="min-w-0 flex-1 truncate font-mono text-[12.5px]" title={file.path}>
            {file.path}
          </span>
          <ChangeBadge change={file.change} />
          {!file.binary && (
            <span className="shrink-0 font-mono text-[11px]">
              <span className="text-emerald-700 dark:text-emerald-400">+{counted.added}</span> <span className="text-rose-700 dark:text-rose-400">−{counted.removed}</span>
            </span>
          )}
        </button>
        {actions}
      </div>
      {below}
      {open && (
        <div className="border-t border-zinc-100 px-2 py-2 dark:border-zinc-800">
          {file.binary ? <p className="text-xs text-zinc-500">A binary file: no text diff to show{file.diff ? ` (${file.diff.trim()})` : ''}.</p> : <DiffView diff={file.diff} label={`Diff of ${file.path}`} maxHeightPx={320} />}
        </div>
      )}
    </li>
  );
}

/** Files with their change and a diff each, rendered as the tool cards render diffs; the first few open. */
export function FileDiffList({
  files,
  openFirst = 4,
  lead,
  actions,
  below,
}: {
  files: DiffFile[];
  openFirst?: number;
  lead?: (f: DiffFile) => ReactNode;
  actions?: (f: DiffFile) => ReactNode;
  below?: (f: DiffFile) => ReactNode;
}) {
  return (
    <ul className="space-y-1.5" aria-label="Files">
      {files.map((f, i) => (
        <FileRow key={f.path} file={f} open={i < openFirst && files.length <= openFirst} lead={lead?.(f)} actions={actions?.(f)} below={below?.(f)} />
      ))}
    </ul>
  );
}
