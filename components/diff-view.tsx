'use client';

import { useMemo } from 'react';
import { VirtualText } from './virtual-text';

/** The colour of one line of a unified diff. */
export function diffLineClass(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---')) return 'text-zinc-500 font-semibold';
  if (line.startsWith('+')) return 'bg-emerald-50 text-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-300';
  if (line.startsWith('-')) return 'bg-rose-50 text-rose-800 dark:bg-rose-950/50 dark:text-rose-300';
  if (line.startsWith('@@')) return 'text-sky-700 dark:text-sky-400';
  if (line.startsWith('\\')) return 'text-zinc-400 italic';
  return undefined;
}

/** Count added and removed lines of a unified diff (headers excluded). */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

/**
 * A unified diff with + and - lines coloured; long diffs are virtualised. `fill`: a flex column whose
 * scroll box shrinks below maxHeightPx when its container has less room.
 */
export function DiffView({ diff, label = 'Diff', maxHeightPx = 360, fill = false }: { diff: string; label?: string; maxHeightPx?: number; fill?: boolean }) {
  const stats = useMemo(() => diffStats(diff), [diff]);
  if (!diff.trim()) return <p className="text-xs text-zinc-500">No changes.</p>;
  return (
    <div className={fill ? 'flex min-h-0 flex-1 flex-col gap-1' : 'space-y-1'}>
      <div className="flex gap-2 font-mono text-[11px]">
        <span className="text-emerald-700 dark:text-emerald-400">+{stats.added}</span>
        <span className="text-rose-700 dark:text-rose-400">−{stats.removed}</span>
      </div>
      <VirtualText text={diff} lineClass={diffLineClass} maxHeightPx={maxHeightPx} label={label} />
    </div>
  );
}
