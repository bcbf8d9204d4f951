'use client';

import { useChat } from '@ai-sdk/react';
import { useQueryClient } from '@tanstack/react-query';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ClampDataParts, ClampMessage, SessionDetail } from '@/lib/contract/protocol';
import { chatRequestBody } from '@/lib/contract/chat-body';
import { queryKeys, stopTurnOnServer } from './api';
import { ApprovalBar, type AnswerEvent } from './approval-bar';
import { RewindBar } from './branches';
import { ChatUiContext, ProgressStore, type ChatUi, type ViewerSource } from './chat-context';
import { cutsOf, pendingOf, todosOf } from './chat-derive';
import { liveWaitsOf } from './live-waits';
import { ChatList, type ChatListHandle } from './chat-list';
import { rowsOf } from './chat-rows';
import { Composer, type ComposerMessage } from './composer';
import { EmptyChat } from './empty-chat';
import { useStoredUserParts } from './composer-sync';
import type { ContextView } from './context-meter';
import { OutputViewer } from './output-viewer';
import { PlanPanel } from './plan-panel';
import { RewindProvider } from './rewind-context';
import { useContextView } from './use-context-view';
import { useLateDiagnostics } from './late-diagnostics';

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
  // calls that wait while the turn runs (a subagent's approval, a question) show while busy too
  const pending = useMemo(
    () => [...(busy ? [] : pendingOf(messages, detail.pendingApprovals.filter((a) => a.sessionId === sessionId && !a.info?.question), answered)), ...liveWaitsOf(messages, detail.pendingApprovals, answered, sessionId)],
    [busy, messages, detail.pendingApprovals, answered, sessionId],
  );
  const todos = useMemo(() => todosOf(messages), [messages]);
  // the provider's own words and next step, when the failed turn left a notice; the error line shows it once
  const last = messages[messages.length - 1];
  const notice = error && last?.role === 'assistant' ? lastErrorNotice(last) : null;

  const [cardOpen] = useState(() => new Map<string, boolean>());
  const ui = useMemo<ChatUi>(() => ({ progress, openViewer: (source, title) => setViewer({ source, title }), cardOpen }), [progress, cardOpen]);

  const onAnswered = useCallback(
    ({ call, answer, reason }: AnswerEvent) => {
      setAnswered((prev) => new Set(prev).add(call.approvalId));
      // a live wait resumes on the server as soon as the answer is recorded
      if (!call.live) void addToolApprovalResponse({ id: call.approvalId, approved: answer !== 'deny', ...(reason ? { reason } : {}) });
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

  useStoredUserParts(sessionId, status, setMessages);
  // a change's diagnostics that arrive after the turn ended reach its card
  useLateDiagnostics(sessionId, messages, busy, setMessages);
  const send = useCallback(
    (m: ComposerMessage) => {
      const files = m.files.map((f) => ({ type: 'file' as const, mediaType: f.mediaType, filename: f.name, url: f.url }));
      void sendMessage({ parts: [{ type: 'text', text: m.text }, ...files, ...(m.skill ? [{ type: 'data-skill-request' as const, data: m.skill }] : [])] });
      listRef.current?.scrollToEnd();
    },
    [sendMessage],
  );
  // stop() aborts the request; the stop route also ends the turn if the abort does not reach the server
  const onStop = () => {
    void stop();
    void stopTurnOnServer(sessionId);
  };
  // the server resumes the turn a failure cut short from what it stored (nothing that ran runs again):
  // the assistant message the page holds is continued, a user message alone is sent again
  const retry = () => {
    clearError();
    if (messages.at(-1)?.role === 'assistant') void sendMessage();
    else void regenerate();
  };
  // edit-and-resend sends after its rewind; a rewound message's text goes back to an empty composer
  const resend = useCallback((text: string) => void sendMessage({ text }), [sendMessage]);
  const draftRef = useRef<((text: string) => void) | null>(null);
  const draftIfEmpty = useCallback((text: string) => draftRef.current?.(text), []);

  return (
    <ChatUiContext.Provider value={ui}>
      <RewindProvider sessionId={sessionId} messages={messages} setMessages={setMessages} busy={busy} send={resend} setDraft={draftIfEmpty}>
      <div className="flex h-full min-h-0 flex-col">
        {/* the conversation keeps at least 40% of the window, whatever waits below it (the model's words before a call stay readable) */}
        <div className="flex min-h-[40dvh] flex-1 flex-col">
          <ChatList
            ref={listRef}
            rows={rows}
            cuts={cuts}
            pruned={pruned}
            idle={!busy}
            empty={<EmptyChat />}
          />
        </div>
        <div className="flex min-h-0 flex-col border-t border-zinc-200 bg-zinc-50/90 dark:border-zinc-800 dark:bg-zinc-950/90">
          {/* what waits for the person takes the room left above the composer: a long diff scrolls in its item, the rest here */}
          <div className="flex min-h-0 flex-col overflow-y-auto">
            <div className="mx-auto flex min-h-0 w-full max-w-4xl flex-col gap-2 px-4 pt-2.5 empty:hidden">
              <PlanPanel items={todos} />
              <RewindBar />
              <ApprovalBar sessionId={sessionId} pending={pending} onAnswered={onAnswered} />
            </div>
          </div>
          <div className="mx-auto w-full max-w-4xl shrink-0 space-y-2 px-4 py-3">
            {error && (
              <div role="alert" className="flex items-start gap-2 rounded border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200">
                <p className="flex-1">
                  <span className="font-medium">The turn failed: </span>
                  {notice?.message ?? (error.message || 'the connection to the server was lost.')}
                  <span className="block text-xs opacity-90">Next step: {notice?.next ?? 'fix the cause above, then retry; your message is kept.'}</span>
                </p>
                <button type="button" onClick={retry} className="rounded border border-rose-300 bg-white px-2 py-0.5 text-xs font-medium hover:bg-rose-100 dark:border-rose-800 dark:bg-rose-950">
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
            <Composer session={detail.session} busy={busy} blocked={pending.length > 0 ? 'Answer the approval first.' : undefined} disabled={disabled} errored={!!error} onSend={send} onStop={onStop} onCompact={compact} draftRef={draftRef} />
          </div>
        </div>
      </div>
      </RewindProvider>
      {viewer && <OutputViewer source={viewer.source} title={viewer.title} onClose={() => setViewer(null)} />}
    </ChatUiContext.Provider>
  );
}
