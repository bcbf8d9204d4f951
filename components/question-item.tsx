'use client';

import { useEffect, useRef, useState } from 'react';
import type { AskQuestion } from '@/lib/contract/subagents';
import type { AnswerEvent, PendingCall } from './approval-bar';
import { useQuestionAnswer } from './use-approval-answer';
import { modalOpen } from './use-approval-keys';
import { LimitItem } from './limit-item';

const btn = 'rounded border px-2.5 py-1 text-xs font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:cursor-not-allowed disabled:opacity-50';

/**
 * ask_user's question where approvals appear: the question, its choices as buttons, a free-text
 * answer and Decline. The answer goes to the approvals route (answer "once" with the reply) and is
 * the tool's result the model reads.
 */
export function QuestionItem(p: { call: PendingCall; question: AskQuestion; sessionId: string; autoFocus: boolean; onAnswered: (e: AnswerEvent) => void }) {
  // a turn paused at a spending limit waits as a question whose answer is a new limit
  const hit = p.question.limit;
  return hit ? <LimitItem call={p.call} hit={hit} sessionId={p.sessionId} autoFocus={p.autoFocus} onAnswered={p.onAnswered} /> : <AskItem {...p} />;
}

function AskItem({ call, question, sessionId, autoFocus, onAnswered }: { call: PendingCall; question: AskQuestion; sessionId: string; autoFocus: boolean; onAnswered: (e: AnswerEvent) => void }) {
  const { busy, error, send } = useQuestionAnswer(call, sessionId, onAnswered);

  return (
    <div data-question-for={call.toolCallId} data-approval-for={call.toolCallId} aria-label={`Question from the agent: ${question.question}`} className="space-y-2 rounded-md border border-sky-300 bg-sky-50/70 p-3 dark:border-sky-800 dark:bg-sky-950/30">
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className="font-semibold text-zinc-800 dark:text-zinc-100">The agent asks</span>
        {call.info?.from && <span className="rounded bg-indigo-100 px-1.5 py-0.5 font-medium text-indigo-800 dark:bg-indigo-950 dark:text-indigo-300">from subagent {call.info.from.label}</span>}
      </div>
      <p className="whitespace-pre-wrap text-sm text-zinc-900 dark:text-zinc-100">{question.question}</p>
      {question.choices && question.choices.length > 0 && (
        <div className="flex flex-wrap gap-1.5" role="group" aria-label="Choices">
          {question.choices.map((c, i) => (
            <button key={`${i}-${c}`} type="button" disabled={busy} onClick={() => void send(c)} className={`${btn} border-sky-600 bg-white text-sky-800 hover:bg-sky-100 dark:bg-zinc-900 dark:text-sky-300`}>
              {c}
            </button>
          ))}
        </div>
      )}
      <AnswerForm autoFocus={autoFocus} hasChoices={!!question.choices?.length} busy={busy} send={send} />
      {error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {error}
        </p>
      )}
    </div>
  );
}

/** A free-text answer with Answer and Decline; the field takes the focus when the question is the first waiting (never out of a modal). */
function AnswerForm({ autoFocus, hasChoices, busy, send }: { autoFocus: boolean; hasChoices: boolean; busy: boolean; send: (reply: string | null) => Promise<void> }) {
  const [text, setText] = useState('');
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (autoFocus && !modalOpen()) inputRef.current?.focus();
  }, [autoFocus]);

  return (
    <form
      className="flex items-center gap-1.5"
      onSubmit={(e) => {
        e.preventDefault();
        void send(text);
      }}
    >
      <input
        ref={inputRef}
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder={hasChoices ? 'Or type another answer' : 'Your answer'}
        aria-label="Your answer"
        className="min-w-0 flex-1 rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-950"
      />
      <button type="submit" disabled={busy || !text.trim()} className={`${btn} border-sky-700 bg-sky-600 text-white hover:bg-sky-700`}>
        Answer
      </button>
      <button type="button" disabled={busy} onClick={() => void send(null)} className={`${btn} border-zinc-300 bg-white text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200`}>
        Decline
      </button>
    </form>
  );
}
