'use client';

import { useChat } from '@ai-sdk/react';
import { useQueryClient } from '@tanstack/react-query';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { ClampDataParts, ClampMessage, SessionDetail } from '@/lib/contract/protocol';
import { chatRequestBody } from '@/lib/contract/chat-body';
import { queryKeys, stopTurnOnServer } from './api';
import { ApprovalBar, type AnswerEvent } from './approval-bar';
import { RewindBar } from './branches';
import { ChatUiContext, ProgressStore, type ChatUi, type ViewerSource } from './chat-context';
import { cutsOf, pendingOf, todosOf } from './chat-derive';
import { ChatList, type ChatListHandle } from './chat-list';
import { rowsOf } from './chat-rows';
import { compactCommand } from './context-api';
import type { ContextView } from './context-meter';
import { OutputViewer } from './output-viewer';
import { PlanPanel } from './plan-panel';
import { RewindProvider } from './rewind-context';
import { useContextView } from './use-context-view';

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
  const qc = useQueryClient();
  const [progress] = useState(() => new ProgressStore());
  const [viewer, setViewer] = useState<{ source: ViewerSource; title: string } | null>(null);
  const [answered, setAnswered] = useState<ReadonlySet<string>>(() => new Set());
  const [input, setInput] = useState('');
  const [transport] = useState(
    () =>
      new DefaultChatTransport<ClampMessage>({
        api: '/api/chat',
        // the server holds the conversation: send the new text, or which message to continue (ids only)
        prepareSendMessagesRequest: ({ id, messages }) => ({ body: chatRequestBody(id, messages[messages.length - 1]) }),
      }),
  );

  const { messages, setMessages, sendMessage, status, stop, error, clearError, regenerate, addToolApprovalResponse } = useChat<ClampMessage>({
    id: sessionId,
    messages: detail.messages,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    experimental_throttle: 50,
    onData: (part) => {
      if (part.type === 'data-tool-progress') progress.append(part.data.toolCallId, part.data.text);
    },
    onFinish: () => void qc.invalidateQueries({ queryKey: queryKeys.sessions }),
  });

  const busy = status === 'submitted' || status === 'streaming';
  const allCuts = useMemo(() => cutsOf(messages), [messages]);
  const cutsKey = [...allCuts.keys()].join('\n');
  // same cuts, same Map: memoised messages re-render only when their own parts change
  const cuts = useMemo(() => allCuts, [cutsKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const pending = useMemo(() => (busy ? [] : pendingOf(messages, detail.pendingApprovals, answered)), [busy, messages, detail.pendingApprovals, answered]);
  const todos = useMemo(() => todosOf(messages), [messages]);
  // the provider's own words and next step, when the failed turn left a notice; the error line shows it once
  const last = messages[messages.length - 1];
  const notice = error && last?.role === 'assistant' ? lastErrorNotice(last) : null;

  const [cardOpen] = useState(() => new Map<string, boolean>());
  const ui = useMemo<ChatUi>(() => ({ progress, openViewer: (source, title) => setViewer({ source, title }), cardOpen }), [progress, cardOpen]);

  const onAnswered = useCallback(
    ({ call, answer, reason }: AnswerEvent) => {
      setAnswered((prev) => new Set(prev).add(call.toolCallId));
      void addToolApprovalResponse({ id: call.approvalId, approved: answer !== 'deny', ...(reason ? { reason } : {}) });
      void qc.invalidateQueries({ queryKey: queryKeys.sessions });
    },
    [addToolApprovalResponse, qc],
  );

  // the list follows new rows itself while at the bottom; a new approval or a sent message brings it there
  const listRef = useRef<ChatListHandle>(null);
  useEffect(() => {
    if (pending.length > 0) listRef.current?.scrollToEnd();
  }, [pending.length]);
  const onCompacted = useCallback(() => listRef.current?.scrollToEnd(), []);
  const { pruned, compact, compacting, compactError, clearCompactError } = useContextView({ sessionId, messages, busy, setMessages, onContext, onCompacted });
  const rows = useMemo(() => rowsOf(messages, { hideErrorNoticeOf: notice ? last?.id : undefined, working: status === 'submitted' }), [messages, notice, last, status]);

  const send = () => {
    const text = input.trim();
    if (!text || busy || pending.length > 0 || disabled) return;
    setInput('');
    const focus = compactCommand(text);
    if (focus !== null) return compact(focus);
    void sendMessage({ text });
    listRef.current?.scrollToEnd();
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    }
  };
  // stop() aborts the request; the stop route also ends the turn if the abort does not reach the server
  const onStop = () => {
    void stop();
    void stopTurnOnServer(sessionId);
  };
  const blocked = disabled ?? (pending.length > 0 ? 'Answer the pending approval first.' : undefined);
  // edit-and-resend sends after its rewind; a rewound message's text goes back to an empty composer
  const resend = useCallback((text: string) => void sendMessage({ text }), [sendMessage]);
  const draftIfEmpty = useCallback((text: string) => setInput((cur) => (cur.trim() ? cur : text)), []);

  return (
    <ChatUiContext.Provider value={ui}>
      <RewindProvider sessionId={sessionId} messages={messages} setMessages={setMessages} busy={busy} send={resend} setDraft={draftIfEmpty}>
      <div className="flex h-full min-h-0 flex-col">
        <ChatList
          ref={listRef}
          rows={rows}
          cuts={cuts}
          pruned={pruned}
          idle={!busy}
          empty={<p className="py-12 text-center text-sm text-zinc-500">Ask Clamp to read, search, change or run something in this workspace.</p>}
        />
        <div className="border-t border-zinc-200 bg-zinc-50/90 dark:border-zinc-800 dark:bg-zinc-950/90">
          <div className="mx-auto max-w-4xl space-y-2 px-4 py-3">
            <PlanPanel items={todos} />
            <RewindBar />
            <ApprovalBar sessionId={sessionId} pending={pending} onAnswered={onAnswered} />
            {error && (
              <div role="alert" className="flex items-start gap-2 rounded border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200">
                <p className="flex-1">
                  <span className="font-medium">The turn failed: </span>
                  {notice?.message ?? (error.message || 'the connection to the server was lost.')}
                  <span className="block text-xs opacity-90">Next step: {notice?.next ?? 'fix the cause above, then retry; your message is kept.'}</span>
                </p>
                <button type="button" onClick={() => void regenerate()} className="rounded border border-rose-300 bg-white px-2 py-0.5 text-xs font-medium hover:bg-rose-100 dark:border-rose-800 dark:bg-rose-950">
                  Retry
                </button>
                <button type="button" aria-label="Dismiss the error" onClick={clearError} className="rounded px-1.5 text-xs hover:bg-rose-100 dark:hover:bg-rose-900">
                  ✕
                </button>
              </div>
            )}
            {compacting && (
              <p role="status" className="text-xs text-violet-700 dark:text-violet-300">
                Compacting the context: the model is summarising the older turns…
              </p>
            )}
            {compactError && (
              <div role="alert" className="flex items-start gap-2 rounded border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200">
                <p className="flex-1">{compactError}</p>
                <button type="button" aria-label="Dismiss" onClick={clearCompactError} className="rounded px-1.5 text-xs hover:bg-rose-100 dark:hover:bg-rose-900">
                  ✕
                </button>
              </div>
            )}
            <div className="flex items-end gap-2">
              <label htmlFor="chat-input" className="sr-only">
                Message
              </label>
              <textarea
                id="chat-input"
                value={input}
                onChange={(e) => setInput(e.target.value)}
                onKeyDown={onKey}
                rows={Math.min(8, Math.max(2, input.split('\n').length))}
                placeholder={blocked ?? 'Message Clamp (Enter to send, Shift+Enter for a new line)'}
                disabled={!!disabled}
                className="min-h-[2.75rem] flex-1 resize-none rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-xs focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900"
              />
              {busy ? (
                <button type="button" onClick={onStop} className="h-[2.75rem] rounded-md border border-zinc-300 bg-white px-4 text-sm font-medium text-zinc-800 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100">
                  <span aria-hidden="true">■ </span>Stop
                </button>
              ) : (
                <button
                  type="button"
                  onClick={send}
                  disabled={!input.trim() || !!blocked}
                  className="h-[2.75rem] rounded-md bg-sky-600 px-4 text-sm font-medium text-white hover:bg-sky-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 focus-visible:ring-offset-2 disabled:opacity-50"
                >
                  Send
                </button>
              )}
            </div>
          </div>
        </div>
      </div>
      </RewindProvider>
      {viewer && <OutputViewer source={viewer.source} title={viewer.title} onClose={() => setViewer(null)} />}
    </ChatUiContext.Provider>
  );
}
