'use client';

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ClampDataParts, ClampMessage, SessionDetail } from '@/lib/contract/protocol';
import { ChatUiContext, ProgressStore, type ChatUi, type ViewerSource } from './chat-context';
import { todosOf } from './chat-derive';
import { ChatList, type ChatListHandle } from './chat-list';
import { CompactNotes, TurnError, WaitingArea } from './chat-notes';
import { rowsOf } from './chat-rows';
import { Composer } from './composer';
import { EmptyChat } from './empty-chat';
import { useStoredUserParts } from './composer-sync';
import type { ContextView } from './context-meter';
import { OutputViewer } from './output-viewer';
import { RewindProvider } from './rewind-context';
import { useChatActions, useClampChat, usePendingCalls, useStableCuts } from './use-clamp-chat';
import { useContextView } from './use-context-view';
import { useLateDiagnostics } from './late-diagnostics';
import { useInboxAnswers } from './inbox-events';
import { useServerTurn } from './use-server-turn';

function lastErrorNotice(m: ClampMessage): ClampDataParts['notice'] | null {
  for (let i = m.parts.length - 1; i >= 0; i--) {
    const p = m.parts[i];
    if (p.type === 'data-notice' && p.data.level === 'error') return p.data;
  }
  return null;
}

/**
 * The conversation of one session, wired to POST /api/chat with useChat: messages, tool cards,
 * the approval bar, the plan, a Stop button while the agent works and an error line with the next step.
 */
export function Chat({ detail, disabled, onContext }: { detail: SessionDetail; disabled?: string; onContext: (c: ContextView | null) => void }) {
  const sessionId = detail.session.id;
  const [progress] = useState(() => new ProgressStore());
  const [viewer, setViewer] = useState<{ source: ViewerSource; title: string } | null>(null);
  const chat = useClampChat(detail, progress);
  const { messages, setMessages, status, error, clearError } = chat;
  const busy = status === 'submitted' || status === 'streaming';
  const cuts = useStableCuts(messages);
  const { pending, onAnswered } = usePendingCalls(chat, detail, busy);
  // a call of this chat answered in the inbox; a turn of it the server runs without this chat's stream
  useInboxAnswers(sessionId, pending, onAnswered);
  useServerTurn(sessionId, busy, setMessages);
  const todos = useMemo(() => todosOf(messages), [messages]);
  // the provider's own words and next step, when the failed turn left a notice; the error line shows it once
  const last = messages[messages.length - 1];
  const notice = error && last?.role === 'assistant' ? lastErrorNotice(last) : null;

  const [cardOpen] = useState(() => new Map<string, boolean>());
  const ui = useMemo<ChatUi>(() => ({ progress, openViewer: (source, title) => setViewer({ source, title }), cardOpen }), [progress, cardOpen]);

  // the list follows new rows itself while at the bottom; a new approval or a sent message brings it there
  const listRef = useRef<ChatListHandle>(null);
  useEffect(() => {
    if (pending.length > 0) listRef.current?.scrollToEnd();
  }, [pending.length]);
  const onCompacted = useCallback(() => listRef.current?.scrollToEnd(), []);
  const { pruned, compact, compacting, compactError, clearCompactError } = useContextView({ sessionId, messages, busy, setMessages, onContext, onCompacted });
  const rows = useMemo(() => rowsOf(messages, { hideErrorNoticeOf: notice ? last?.id : undefined, working: status === 'submitted' }), [messages, notice, last, status]);

  useStoredUserParts(sessionId, status, setMessages);
  // a change's diagnostics that arrive after the turn ended reach its card
  useLateDiagnostics(sessionId, messages, busy, setMessages);
  const { send, onStop, retry, resend } = useChatActions(chat, sessionId, listRef);
  // a rewound message's text goes back to an empty composer
  const draftRef = useRef<((text: string) => void) | null>(null);
  const draftIfEmpty = useCallback((text: string) => draftRef.current?.(text), []);

  return (
    <ChatUiContext.Provider value={ui}>
      <RewindProvider sessionId={sessionId} messages={messages} setMessages={setMessages} busy={busy} send={resend} setDraft={draftIfEmpty}>
      <div className="flex h-full min-h-0 flex-col">
        {/* the conversation keeps at least 40% of the window, whatever waits below it (the model's words before a call stay readable) */}
        <div className="flex min-h-[40dvh] flex-1 flex-col">
          <ChatList ref={listRef} rows={rows} cuts={cuts} pruned={pruned} idle={!busy} empty={<EmptyChat />} />
        </div>
        <div className="flex min-h-0 flex-col border-t border-zinc-200 bg-zinc-50/90 dark:border-zinc-800 dark:bg-zinc-950/90">
          <WaitingArea todos={todos} sessionId={sessionId} pending={pending} onAnswered={onAnswered} />
          <div className="mx-auto w-full max-w-4xl shrink-0 space-y-2 px-4 py-3">
            {error && <TurnError error={error} notice={notice} onRetry={retry} onDismiss={clearError} />}
            <CompactNotes compacting={compacting} compactError={compactError} onDismiss={clearCompactError} />
            <Composer session={detail.session} busy={busy} blocked={pending.length > 0 ? 'Answer the approval first.' : undefined} disabled={disabled} errored={!!error} onSend={send} onStop={onStop} onCompact={compact} draftRef={draftRef} />
          </div>
        </div>
      </div>
      </RewindProvider>
      {viewer && <OutputViewer source={viewer.source} title={viewer.title} onClose={() => setViewer(null)} />}
    </ChatUiContext.Provider>
  );
}
