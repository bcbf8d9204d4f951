'use client';

import { useChat } from '@ai-sdk/react';
import { useQueryClient } from '@tanstack/react-query';
import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useCallback, useMemo, useState, type RefObject } from 'react';
import type { ClampMessage, SessionDetail } from '@/lib/contract/protocol';
import { chatRequestBody } from '@/lib/contract/chat-body';
import { queryKeys, stopTurnOnServer } from './api';
import { ClampChatTransport } from './chat-transport';
import type { AnswerEvent } from './approval-bar';
import type { ProgressStore } from './chat-context';
import { cutsOf, pendingOf } from './chat-derive';
import type { ChatListHandle } from './chat-list';
import type { ComposerMessage } from './composer';
import { liveWaitsOf } from './live-waits';
import { responseMessage } from '@/lib/ui/file-page';

/** POST /api/chat: a refusal (409 while another process runs the session, 400 …) reads as the server's own words, not its JSON. */
async function chatFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (!res.ok) throw new Error(await responseMessage(res));
  return res;
}

/** useChat on POST /api/chat: the server holds the conversation, so a request carries the new text or which message to continue (ids only). */
export function useClampChat(detail: SessionDetail, progress: ProgressStore) {
  const qc = useQueryClient();
  const [transport] = useState(
    () =>
      new ClampChatTransport<ClampMessage>({
        api: '/api/chat',
        fetch: chatFetch,
        // the server holds the conversation: send the new text, or which message to continue (ids only)
        prepareSendMessagesRequest: ({ id, messages }) => ({ body: chatRequestBody(id, messages[messages.length - 1]) }),
      }),
  );
  return useChat<ClampMessage>({
    id: detail.session.id,
    messages: detail.messages,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    experimental_throttle: 50,
    onData: (part) => {
      if (part.type === 'data-tool-progress') progress.append(part.data.toolCallId, part.data.text);
    },
    onFinish: () => void qc.invalidateQueries({ queryKey: queryKeys.sessions }),
  });
}

type ClampChat = ReturnType<typeof useClampChat>;

/** Each call's cut of the turn's budget; the same Map while the cuts are the same, so memoised messages re-render only when their own parts change. */
export function useStableCuts(messages: ClampMessage[]) {
  const allCuts = useMemo(() => cutsOf(messages), [messages]);
  const cutsKey = [...allCuts.keys()].join('\n');
  // same cuts, same Map: memoised messages re-render only when their own parts change
  return useMemo(() => allCuts, [cutsKey]); // eslint-disable-line react-hooks/exhaustive-deps
}

/**
 * The calls waiting for the person, in call order, and what answering one does: an answered call leaves
 * the list at once; the SDK hears the answer (a live wait resumes on the server alone).
 */
export function usePendingCalls(chat: ClampChat, detail: SessionDetail, busy: boolean) {
  const qc = useQueryClient();
  const sessionId = detail.session.id;
  const { messages, addToolApprovalResponse } = chat;
  const [answered, setAnswered] = useState<ReadonlySet<string>>(() => new Set());
  // calls that wait while the turn runs (a subagent's approval, a question) show while busy too
  const pending = useMemo(
    () => [...(busy ? [] : pendingOf(messages, detail.pendingApprovals.filter((a) => a.sessionId === sessionId && !a.info?.question), answered)), ...liveWaitsOf(messages, detail.pendingApprovals, answered, sessionId)],
    [busy, messages, detail.pendingApprovals, answered, sessionId],
  );
  const onAnswered = useCallback(
    ({ call, answer, reason }: AnswerEvent) => {
      setAnswered((prev) => new Set(prev).add(call.approvalId));
      // a live wait resumes on the server as soon as the answer is recorded
      if (!call.live) void addToolApprovalResponse({ id: call.approvalId, approved: answer !== 'deny', ...(reason ? { reason } : {}) });
      void qc.invalidateQueries({ queryKey: queryKeys.sessions });
    },
    [addToolApprovalResponse, qc],
  );
  return { pending, onAnswered };
}

/** Send, Stop, Retry and a rewound message's resend, and the composer's draft setter for a rewound message's text. */
export function useChatActions(chat: ClampChat, sessionId: string, listRef: RefObject<ChatListHandle | null>) {
  const { messages, sendMessage, stop, clearError, regenerate } = chat;
  const send = useCallback(
    (m: ComposerMessage) => {
      const files = m.files.map((f) => ({ type: 'file' as const, mediaType: f.mediaType, filename: f.name, url: f.url }));
      void sendMessage({ parts: [{ type: 'text', text: m.text }, ...files, ...(m.skill ? [{ type: 'data-skill-request' as const, data: m.skill }] : []), ...(m.command ? [{ type: 'data-file-command' as const, data: m.command }] : [])] });
      listRef.current?.scrollToEnd();
    },
    [sendMessage, listRef],
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
  // edit-and-resend sends after its rewind
  const resend = useCallback((text: string) => void sendMessage({ text }), [sendMessage]);
  return { send, onStop, retry, resend };
}
