'use client';

import type { ApprovalAnswer, ApprovalInfo } from '@/lib/contract/protocol';
import { ApprovalItem, commandOf, Kbd } from './approval-item';
import { QuestionItem } from './question-item';

/** A call waiting for the person, in call order. */
export interface PendingCall {
  toolCallId: string;
  /** the id addToolApprovalResponse answers (the tool part's approval.id) */
  approvalId: string;
  toolName: string;
  input: unknown;
  info?: ApprovalInfo | null;
  /** the session whose approval it is, when not the one shown (a subagent's own session) */
  sessionId?: string;
  /** waits while its turn runs (a subagent's call, a question): answered on the server only, not through the SDK */
  live?: boolean;
}

export interface AnswerEvent {
  call: PendingCall;
  answer: ApprovalAnswer;
  reason?: string;
}

/** Every pending call in call order, each with its full command, cwd, risk, diff and answer buttons; focus moves here when one appears. */
export function ApprovalBar({ sessionId, pending, onAnswered }: { sessionId: string; pending: PendingCall[]; onAnswered: (e: AnswerEvent) => void }) {
  if (pending.length === 0) return null;
  // only a command can be edited before it runs: the e key is listed only when an Edit button is there
  const editable = pending.some((c) => commandOf(c.input) !== undefined);
  // a question has its own controls; the approval keys are listed only when an approval is there
  const approvals = pending.some((c) => !c.info?.question);
  const first = pending.findIndex((c) => !c.info?.question);
  // a column that shrinks to the room the conversation leaves: each item's diff gives way first (the chat's layout scrolls the rest)
  return (
    <section aria-label="Pending approvals" className="flex min-h-0 flex-col gap-2">
      {pending.map((call, i) =>
        call.info?.question ? (
          <QuestionItem key={`${call.sessionId ?? ''}/${call.toolCallId}`} call={call} question={call.info.question} sessionId={call.sessionId ?? sessionId} autoFocus={i === 0} onAnswered={onAnswered} />
        ) : (
          <ApprovalItem key={`${call.sessionId ?? ''}/${call.toolCallId}`} call={call} index={i} total={pending.length} sessionId={sessionId} autoFocus={i === 0} pageKeys={i === first} onAnswered={onAnswered} />
        ),
      )}
      {approvals && <p className="shrink-0 text-[11px] text-zinc-500">
        Keys: <Kbd k="↵" />/<Kbd k="y" /> approve once · <Kbd k="s" /> this session · <Kbd k="a" /> always · {editable && (
          <>
            <Kbd k="e" /> edit ·{' '}
          </>
        )}
        <Kbd k="n" />/<Kbd k="Esc" /> deny · <Kbd k="r" /> type a reason
      </p>}
    </section>
  );
}
