'use client';

import { useEffect, useRef } from 'react';
import type { ApprovalAnswer } from '@/lib/contract/protocol';
import type { AnswerEvent, PendingCall } from './approval-bar';

const EVENT = 'clamp:answered-in-inbox';

/** What the inbox tells the chat on screen when it answered one of its calls. */
interface InboxAnswered {
  /** the session whose call it was */
  sessionId: string;
  toolCallId: string;
  answer: ApprovalAnswer;
  reason?: string;
}

/** Tell the chat on screen that the inbox answered one of its calls (it then resumes its turn as its own bar would). */
export function announceInboxAnswer(e: InboxAnswered): void {
  window.dispatchEvent(new CustomEvent<InboxAnswered>(EVENT, { detail: e }));
}

/**
 * A call of the chat on screen answered in the inbox is handled as if its own approval bar had answered it:
 * it leaves the bar, and the SDK hears the answer (the turn continues once every call of its message is answered).
 */
export function useInboxAnswers(sessionId: string, pending: PendingCall[], onAnswered: (e: AnswerEvent) => void): void {
  const latest = useRef({ pending, onAnswered });
  useEffect(() => {
    latest.current = { pending, onAnswered };
  });
  useEffect(() => {
    const listener = (ev: Event) => {
      const e = (ev as CustomEvent<InboxAnswered>).detail;
      const call = latest.current.pending.find((c) => c.toolCallId === e.toolCallId && (c.sessionId ?? sessionId) === e.sessionId);
      if (call) latest.current.onAnswered({ call, answer: e.answer, reason: e.reason });
    };
    window.addEventListener(EVENT, listener);
    return () => window.removeEventListener(EVENT, listener);
  }, [sessionId]);
}
