'use client';

import { useRef, useState, type MutableRefObject } from 'react';
import type { ApprovalAnswer, StoredApproval } from '@/lib/contract/protocol';
import type { ApprovalAnswerBody, ApprovalConflictAnswer } from '@/lib/contract/rest';
import { ApiError, postApproval } from './api';
import type { AnswerEvent, PendingCall } from './approval-bar';

/** The answer another tab recorded first (the server's 409 carries it), or null for any other failure. */
export function storedAnswerOf(err: unknown): StoredApproval | null {
  return err instanceof ApiError && err.status === 409 ? ((err.body as Partial<ApprovalConflictAnswer> | null)?.approval ?? null) : null;
}

/** What the item holds when a key or a button answers: the saved rule's patterns, the command as proposed and as edited, the reason, the network box. */
export interface ApprovalDraft {
  patterns: string[] | undefined;
  command: string | undefined;
  edited: string;
  reason: string;
  /** "with network, this once" is offered and ticked */
  network: boolean;
}

type Plan = { final: ApprovalAnswer; body: ApprovalAnswerBody; reason?: string } | { error: string } | null;

/** What an answer posts: an unchanged edit is "once", a reason goes with a denial only, the network with an approval only; null when it may not be given. */
function planAnswer(kind: ApprovalAnswer, d: ApprovalDraft): Plan {
  if ((kind === 'always' || kind === 'session') && !d.patterns) return null;
  const editedCommand = kind === 'edit' ? d.edited.trim() : undefined;
  if (kind === 'edit' && !editedCommand) return { error: 'The edited command is empty. Type a command or deny the call.' };
  const final: ApprovalAnswer = kind === 'edit' && editedCommand === d.command ? 'once' : kind;
  const why = kind === 'deny' ? d.reason.trim() || undefined : undefined;
  const withNetwork = d.network && final !== 'deny';
  return { final, reason: why, body: { answer: final, ...(final === 'edit' ? { editedCommand } : {}), ...(why ? { reason: why } : {}), ...(withNetwork ? { network: true } : {}) } };
}

export interface ApprovalAnswering {
  busy: boolean;
  error: string | null;
  /** set at once (busy is a render away): a second key, or a click, never answers the call twice */
  answering: MutableRefObject<boolean>;
  answer: (kind: ApprovalAnswer) => Promise<void>;
}

/** Answer one pending call on the server, once; a call answered meanwhile in another tab takes that answer. */
export function useApprovalAnswer(call: PendingCall, sessionId: string, draft: ApprovalDraft, onAnswered: (e: AnswerEvent) => void): ApprovalAnswering {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const answering = useRef(false);

  async function answer(kind: ApprovalAnswer) {
    if (busy || answering.current) return;
    const plan = planAnswer(kind, draft);
    if (!plan) return;
    if ('error' in plan) return setError(plan.error);
    answering.current = true;
    setBusy(true);
    setError(null);
    const owner = call.sessionId ?? sessionId;
    try {
      await postApproval(owner, call.toolCallId, plan.body);
      onAnswered({ call, answer: plan.final, reason: plan.reason });
    } catch (err) {
      const stored = storedAnswerOf(err);
      // answered meanwhile (another tab): that answer stands, for this very call only; a withdrawn call's is shown as the error
      if (stored?.answer && stored.status === 'answered' && stored.toolCallId === call.toolCallId && stored.sessionId === owner) onAnswered({ call, answer: stored.answer, reason: stored.reason ?? undefined });
      else setError(err instanceof Error ? err.message : String(err));
      answering.current = false;
      setBusy(false);
    }
  }

  return { busy, error, answering, answer };
}

/** Answer ask_user's question: a reply ("once" with the text) or Decline ("deny"); an answer recorded meanwhile stands. */
export function useQuestionAnswer(call: PendingCall, sessionId: string, onAnswered: (e: AnswerEvent) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function send(reply: string | null) {
    if (busy) return;
    if (reply !== null && !reply.trim()) return setError('Type an answer, pick a choice, or decline.');
    setBusy(true);
    setError(null);
    try {
      await postApproval(sessionId, call.toolCallId, reply === null ? { answer: 'deny' } : { answer: 'once', reply: reply.trim() });
      onAnswered({ call, answer: reply === null ? 'deny' : 'once' });
    } catch (err) {
      const stored = storedAnswerOf(err);
      if (stored?.answer) onAnswered({ call, answer: stored.answer });
      else setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  }

  return { busy, error, send };
}
