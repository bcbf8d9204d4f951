'use client';

import { useState } from 'react';
import type { TodoItem } from '@/lib/contract/protocol';

const mark: Record<TodoItem['status'], { icon: string; cls: string; label: string }> = {
  pending: { icon: '○', cls: 'text-zinc-400', label: 'pending' },
  in_progress: { icon: '◐', cls: 'text-sky-600 dark:text-sky-400', label: 'in progress' },
  completed: { icon: '●', cls: 'text-emerald-600 dark:text-emerald-400', label: 'done' },
  cancelled: { icon: '⊘', cls: 'text-zinc-400', label: 'cancelled' },
};

/** The model's plan (the latest data-todos part); renders nothing when there is none. */
export function PlanPanel({ items }: { items: TodoItem[] | null }) {
  const [open, setOpen] = useState(true);
  if (!items || items.length === 0) return null;
  const done = items.filter((i) => i.status === 'completed').length;
  return (
    <section aria-label="Plan" className="rounded-md border border-zinc-200 bg-white text-sm dark:border-zinc-800 dark:bg-zinc-900">
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className="flex w-full items-center gap-2 px-3 py-1.5 text-left text-xs font-semibold uppercase tracking-wide text-zinc-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
        Plan
        <span className="font-normal normal-case tracking-normal">
          {done} of {items.length} done
        </span>
      </button>
      {open && (
        <ol className="space-y-0.5 px-3 pb-2 text-[13px]">
          {items.map((item, i) => (
            <li key={`${i}-${item.content}`} className="flex gap-2">
              <span className={mark[item.status].cls} aria-label={mark[item.status].label}>
                {mark[item.status].icon}
              </span>
              <span className={item.status === 'completed' || item.status === 'cancelled' ? 'text-zinc-400 line-through' : ''}>{item.content}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
