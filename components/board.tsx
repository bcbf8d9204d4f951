'use client';

import type { BoardSession, BoardState } from '@/lib/contract/board';
import { formatTokens, relativeTime } from './format';
import { NotificationToggle } from './notification-toggle';
import { useBoard } from './use-board';

const STATE_STYLE: Record<BoardState, { label: string; cls: string }> = {
  working: { label: 'working', cls: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200' },
  waiting: { label: 'waiting for you', cls: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200' },
  done: { label: 'done', cls: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200' },
  failed: { label: 'failed', cls: 'bg-rose-100 text-rose-900 dark:bg-rose-950 dark:text-rose-200' },
  new: { label: 'new', cls: 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300' },
};

/** The state in words: "working — step 3 · run_command", "waiting for you (2)", "failed: …". */
export function stateLine(s: BoardSession): string {
  if (s.state === 'working') {
    if (s.elsewhere) return `working in ${s.elsewhere}`;
    const tools = s.tools.length ? ` · ${s.tools.join(', ')}` : ' · the model';
    return `working — ${s.step ? `step ${s.step}` : 'starting'}${tools}`;
  }
  if (s.state === 'waiting') return `waiting for you (${s.waiting})`;
  if (s.state === 'failed') return `failed${s.note ? `: ${s.note}` : ''}`;
  if (s.state === 'done' && s.note) return s.note;
  return STATE_STYLE[s.state].label;
}

function cost(usd: number | null): string {
  if (usd === null) return '—';
  return usd < 0.01 ? '< $0.01' : `$${usd.toFixed(2)}`;
}

/** One session's card: title, state, model, tokens and cost, files changed, worktree and branch; a click opens it. */
function Card({ s, active, defaultModel, onOpen }: { s: BoardSession; active: boolean; defaultModel: string; onOpen: () => void }) {
  const st = STATE_STYLE[s.state];
  return (
    <li>
      <button
        type="button"
        onClick={onOpen}
        data-board-session={s.id}
        data-state={s.state}
        aria-current={active ? 'true' : undefined}
        className={`flex w-full flex-col gap-1.5 rounded-md border bg-white p-3 text-left hover:border-sky-400 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:bg-zinc-900 ${active ? 'border-sky-500' : 'border-zinc-200 dark:border-zinc-800'}`}
      >
        <span className="flex items-center gap-2">
          <span className="min-w-0 flex-1 truncate text-sm font-medium text-zinc-900 dark:text-zinc-100">{s.title || 'Untitled'}</span>
          <span className="shrink-0 text-[11px] text-zinc-500">{relativeTime(s.updatedAt)}</span>
        </span>
        <span className="flex min-w-0 items-center gap-2 text-xs">
          <span className={`shrink-0 rounded px-1.5 py-0.5 font-medium ${st.cls}`}>{st.label}</span>
          <span className="min-w-0 truncate text-zinc-700 dark:text-zinc-300" data-testid="board-state">
            {stateLine(s)}
          </span>
        </span>
        <span className="grid grid-cols-2 gap-x-3 gap-y-0.5 text-[11px] text-zinc-600 sm:grid-cols-4 dark:text-zinc-400">
          <span className="truncate" title={s.model ?? defaultModel}>
            model <span className="font-mono text-zinc-800 dark:text-zinc-200">{s.model ?? defaultModel}</span>
          </span>
          <span>
            tokens <span className="tabular-nums text-zinc-800 dark:text-zinc-200">{formatTokens(s.tokens.input)} in · {formatTokens(s.tokens.output)} out</span>
          </span>
          <span>
            cost <span className="tabular-nums text-zinc-800 dark:text-zinc-200">{cost(s.costUsd)}</span>
          </span>
          <span>
            files changed <span className="tabular-nums text-zinc-800 dark:text-zinc-200">{s.filesChanged}</span>
          </span>
        </span>
        {s.worktree && (
          <span className="truncate text-[11px] text-zinc-600 dark:text-zinc-400" title={s.worktree.path ?? undefined}>
            worktree <span className="font-mono text-zinc-800 dark:text-zinc-200">{s.worktree.branch ?? '(named by its first message)'}</span> · {s.worktree.state}
          </span>
        )}
      </button>
    </li>
  );
}

/** Every session of the workspace as it stands, live; a click opens one. */
export function Board({ activeId, defaultModel, onOpen, onClose }: { activeId: string | null; defaultModel: string; onOpen: (id: string) => void; onClose: () => void }) {
  const board = useBoard();
  const sessions = board.data?.sessions;
  const working = sessions?.filter((s) => s.state === 'working').length ?? 0;
  const waiting = sessions?.filter((s) => s.state === 'waiting').length ?? 0;
  return (
    <section aria-label="Board" data-testid="board" className="flex h-full flex-col">
      <div className="flex flex-wrap items-center gap-3 border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
        <h2 className="text-sm font-semibold">Board</h2>
        <span className="text-xs text-zinc-500">
          {sessions ? `${sessions.length} session${sessions.length === 1 ? '' : 's'} · ${working} working · ${waiting} waiting for you` : ''}
        </span>
        <span className="ml-auto">
          <NotificationToggle />
        </span>
        <button type="button" onClick={onClose} className="rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-zinc-700 dark:hover:bg-zinc-800">
          Back to the conversation
        </button>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto p-4">
        {board.error && <p role="alert" className="text-sm text-rose-700">The board could not be loaded: {board.error.message}</p>}
        {!sessions && !board.error && <p className="text-sm text-zinc-500">Loading…</p>}
        <ul className="grid gap-2 lg:grid-cols-2">
          {sessions?.map((s) => (
            <Card key={s.id} s={s} active={s.id === activeId} defaultModel={defaultModel} onOpen={() => onOpen(s.id)} />
          ))}
        </ul>
      </div>
    </section>
  );
}
