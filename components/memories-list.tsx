'use client';

import { useState } from 'react';
import type { MemoryListAnswer } from '@/lib/contract/rest';
import { useMemories } from './use-memories';

type Memory = MemoryListAnswer['memories'][number];

function MemoryRow({ m, deleting, onDelete }: { m: Memory; deleting: boolean; onDelete: (id: number) => void }) {
  return (
    <li className="flex items-start gap-2 px-2 py-1 text-xs">
      <span className="min-w-0 flex-1 break-words">{m.content}</span>
      <time className="shrink-0 text-zinc-500" dateTime={new Date(m.createdAt).toISOString()}>
        {new Date(m.createdAt).toLocaleDateString()}
      </time>
      <button
        type="button"
        onClick={() => onDelete(m.id)}
        disabled={deleting}
        aria-label={`Delete memory: ${m.content.slice(0, 60)}`}
        className="rounded px-1.5 text-zinc-500 hover:bg-rose-50 hover:text-rose-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:hover:bg-rose-950"
      >
        Delete
      </button>
    </li>
  );
}

/** The workspace's memories (what memory_save kept): search, list, delete. */
export function MemoriesList() {
  const [q, setQ] = useState('');
  const { list, del } = useMemories(q.trim());
  const shown = list.data?.memories ?? [];
  return (
    <section aria-labelledby="memories-h" className="space-y-2">
      <div className="flex items-center gap-2">
        <h3 id="memories-h" className="text-sm font-semibold">
          Memories
        </h3>
        {list.data && (
          <span className="text-xs text-zinc-500">
            {list.data.total > shown.length ? `${shown.length} of ${list.data.total}` : list.data.total}
          </span>
        )}
        <input
          type="search"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          placeholder="Search memories"
          aria-label="Search memories"
          className="ml-auto w-48 rounded border border-zinc-300 bg-white px-2 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-950"
        />
      </div>
      {list.isLoading && <p className="text-xs text-zinc-500">Loading…</p>}
      {list.error && <p className="text-xs text-rose-700">{list.error.message}</p>}
      {list.data && shown.length === 0 && (
        <p className="text-xs text-zinc-500">{q.trim() ? 'No memory matches.' : 'No memories. The agent keeps facts about this workspace with memory_save.'}</p>
      )}
      {shown.length > 0 && (
        <ul className="max-h-56 divide-y divide-zinc-100 overflow-y-auto rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {shown.map((m) => (
            <MemoryRow key={m.id} m={m} deleting={del.isPending} onDelete={(id) => del.mutate(id)} />
          ))}
        </ul>
      )}
    </section>
  );
}
