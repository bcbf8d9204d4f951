'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { InboxItem } from '@/lib/contract/board';
import { queryKeys } from './api';
import { ApprovalItem } from './approval-item';
import type { AnswerEvent, PendingCall } from './approval-bar';
import { announceInboxAnswer } from './inbox-events';
import { NotificationToggle } from './notification-toggle';
import { QuestionItem } from './question-item';
import { BOARD_KEY, continueOnServer, useBoard } from './use-board';

const keyOf = (i: { sessionId: string; toolCallId: string }) => `${i.sessionId}/${i.toolCallId}`;

/** The calls waiting for the person in every session, less those answered here a moment ago (the feed has not said so yet). */
export function useInboxItems() {
  const board = useBoard();
  const [answered, setAnswered] = useState<ReadonlySet<string>>(() => new Set());
  const items = (board.data?.inbox ?? []).filter((i) => !answered.has(keyOf(i)));
  const markAnswered = useCallback((i: { sessionId: string; toolCallId: string }) => setAnswered((prev) => new Set(prev).add(keyOf(i))), []);
  return { items, markAnswered, loading: board.isPending, error: board.error };
}

/** The header's Inbox button: how many calls wait for the person, in any session. */
export function InboxButton({ count, open, onToggle }: { count: number; open: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      onClick={onToggle}
      aria-expanded={open}
      aria-label={count ? `Inbox: ${count} waiting` : 'Inbox'}
      title={count ? `${count} call${count === 1 ? '' : 's'} waiting for you, in any session` : 'Inbox: nothing waits for you'}
      data-testid="inbox-button"
      className={`flex items-center gap-1.5 rounded border px-2 py-0.5 text-xs max-sm:px-1 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 ${count ? 'border-amber-400 bg-amber-50 text-amber-900 hover:bg-amber-100 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200' : 'border-zinc-300 text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800'}`}
    >
      <span className="max-sm:hidden">Inbox</span>
      <span aria-hidden="true" className="sm:hidden">✉</span>
      {count > 0 && <span className="rounded-full bg-amber-600 px-1.5 text-[11px] font-medium tabular-nums text-white">{count}</span>}
    </button>
  );
}

interface InboxPanelProps {
  items: InboxItem[];
  markAnswered: (i: InboxItem) => void;
  /** the session whose chat is on screen: its calls are answered through that chat */
  onScreenId: string | null;
  onOpenSession: (id: string) => void;
  onClose: () => void;
}

/**
 * Every call waiting for the person, from every session and its subagents, grouped by session, each answerable
 * here with the approval bar's own item (the same buttons and keys; keys act in the item that has the focus).
 * A call of the chat on screen is handed to that chat; a session not on screen continues on the server once
 * every call of its turn is answered.
 */
export function InboxPanel({ items, markAnswered, onScreenId, onOpenSession, onClose }: InboxPanelProps) {
  const qc = useQueryClient();
  const onAnswered = useCallback(
    (item: InboxItem) =>
      ({ answer, reason }: AnswerEvent) => {
        markAnswered(item);
        if (item.topId === onScreenId) announceInboxAnswer({ sessionId: item.sessionId, toolCallId: item.toolCallId, answer, reason });
        // a live wait resumes by the answer alone; a turn that stopped for approvals continues on the server
        else if (!item.live) void continueOnServer(item.sessionId);
        void qc.invalidateQueries({ queryKey: queryKeys.sessions });
        void qc.invalidateQueries({ queryKey: BOARD_KEY });
      },
    [markAnswered, onScreenId, qc],
  );
  const groups = groupBySession(items);
  return (
    <section
      aria-label="Inbox"
      data-testid="inbox"
      className="fixed top-12 right-2 z-40 flex max-h-[80dvh] w-[40rem] max-w-[calc(100vw-1rem)] flex-col rounded-md border border-zinc-300 bg-white shadow-xl dark:border-zinc-700 dark:bg-zinc-900"
    >
      <div className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <h2 className="mr-auto text-sm font-semibold">Inbox{items.length ? ` · ${items.length} waiting` : ''}</h2>
        <NotificationToggle />
        <button type="button" onClick={onClose} className="rounded px-1.5 text-xs text-zinc-600 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:text-zinc-300 dark:hover:bg-zinc-800">
          Close
        </button>
      </div>
      <div className="min-h-0 flex-1 space-y-3 overflow-y-auto p-3">
        {items.length === 0 && <p className="text-sm text-zinc-500">Nothing waits for you: no session has a call to approve or a question to answer.</p>}
        {groups.map(([topId, group], g) => (
          <div key={topId} className="space-y-2" data-inbox-session={topId}>
            <div className="flex items-center gap-2 text-xs">
              <span className="truncate font-medium text-zinc-800 dark:text-zinc-100">{group[0].topTitle}</span>
              {topId === onScreenId && <span className="text-zinc-500">(on screen)</span>}
              <button type="button" className="ml-auto text-sky-700 underline dark:text-sky-400" onClick={() => onOpenSession(topId)}>
                Open session
              </button>
            </div>
            {group.map((item, i) => (
              <InboxEntry key={keyOf(item)} item={item} index={i} total={group.length} autoFocus={g === 0 && i === 0} onAnswered={onAnswered(item)} />
            ))}
          </div>
        ))}
      </div>
    </section>
  );
}

/** One waiting call drawn by the approval bar's own item (or its question item). */
function InboxEntry({ item, index, total, autoFocus, onAnswered }: { item: InboxItem; index: number; total: number; autoFocus: boolean; onAnswered: (e: AnswerEvent) => void }) {
  const call: PendingCall = { toolCallId: item.toolCallId, approvalId: item.approvalId, toolName: item.toolName, input: item.input, info: item.info, sessionId: item.sessionId, live: item.live };
  if (item.info?.question) return <QuestionItem call={call} question={item.info.question} sessionId={item.sessionId} autoFocus={autoFocus} onAnswered={onAnswered} />;
  // the chat's bar hears keys from anywhere on the page; here an item hears its own, where the focus is
  return <ApprovalItem call={call} index={index} total={total} sessionId={item.sessionId} autoFocus={autoFocus} pageKeys={false} onAnswered={onAnswered} />;
}

function groupBySession(items: InboxItem[]): [string, InboxItem[]][] {
  const m = new Map<string, InboxItem[]>();
  for (const i of items) m.set(i.topId, [...(m.get(i.topId) ?? []), i]);
  return [...m];
}
