/**
 * Subagents and asking the person: the shapes the `agent` and `ask_user` tools, the loop that serves
 * them, the store and the page share. Tools reach the loop only through these services
 * (ctx.services.subagents, ctx.services.ask): a host without them (the tool CLI, a headless run)
 * simply lacks the capability, and the tools say so.
 */
import type { ApprovalInfo } from './protocol';
import type { LimitHit } from './limits';

/** The kinds of child: `explore` gets the read-only tools only; `general` the parent's tools under its mode, rules and approvals. */
export const SUBAGENT_TYPES = ['explore', 'general'] as const;
export type SubagentType = (typeof SUBAGENT_TYPES)[number];

/** An agent type from a file (`.claude/agents/<name>.md` …): a general child limited to its tools, with its own prompt. */
export interface FileAgent {
  name: string;
  description: string;
  /** the tools it may use, by Clamp's name or Claude Code's (Read, Bash …; `mcp__<server>__<tool>`); absent: the general child's */
  tools?: string[];
  /** the front matter's model, as written */
  model?: string;
  /** its system prompt: the file's body */
  prompt: string;
  path: string;
  source: 'workspace' | 'person';
}

/** What a parent's `agent` call asks of the loop. */
export interface SubagentRequest {
  /** a file's agent runs as a `general` child cut down to its tools */
  type: SubagentType;
  /** the agent type from a file this child is */
  agent?: FileAgent;
  /** a few words for the page ("find the config loader") */
  description: string;
  /** the whole task, self-contained: the child sees nothing of the parent's conversation */
  prompt: string;
}

/** How a child ended. */
export type SubagentEnd = 'done' | 'step-cap' | 'token-cap' | 'stopped' | 'error';

/** What the child gives back: its final report (uncut; the tool fits it) and how it ended. */
export interface SubagentOutcome {
  end: SubagentEnd;
  report: string;
  /** the child's stored session, whose transcript the page opens read-only */
  sessionId: string;
  steps: number;
  tokens: number;
  toolCalls: number;
  /** the provider's failure, when end is 'error' */
  error?: string;
}

/** The loop's capability behind `agent` (ctx.services.subagents). */
export interface SubagentService {
  /** Run one child to its end; resolves with its outcome (never rejects; a stop resolves with end 'stopped'). */
  run(req: SubagentRequest, parentCallId: string, signal: AbortSignal): Promise<SubagentOutcome>;
}

/** A question for the person (ask_user). */
export interface AskQuestion {
  question: string;
  /** offered as buttons; the person may still type another answer */
  choices?: string[];
  /** a turn paused at a spending limit asks this: the answer is a new limit (the reply) or stop (declined) */
  limit?: LimitHit;
}

/** The person's answer, or why there is none. */
export type AskAnswer = { kind: 'answer'; text: string } | { kind: 'declined'; reason?: string } | { kind: 'stopped' };

/** The loop's capability behind `ask_user` (ctx.services.ask): waits for the person with the turn's signal. */
export type AskService = (q: AskQuestion, toolCallId: string, signal: AbortSignal) => Promise<AskAnswer>;

/** One call of a child, as the parent's card lists it. */
export interface SubagentCall {
  toolCallId: string;
  toolName: string;
  /** the call in one line (its tool's summary) */
  summary: string;
  state: 'running' | 'waiting' | 'ok' | 'error' | 'denied';
  durationMs?: number;
}

/** data-subagent: a child of an `agent` call, live while it runs and stored with the parent's message. */
export interface SubagentView {
  /** the parent's `agent` call */
  toolCallId: string;
  /** the child's session (its transcript) */
  sessionId: string;
  type: SubagentType;
  description: string;
  status: 'running' | SubagentEnd;
  steps: number;
  tokens: number;
  /** the newest SUBAGENT_CALLS_SHOWN_MAX calls; callsTotal counts them all */
  calls: SubagentCall[];
  callsTotal: number;
  startedAt: number;
  endedAt?: number;
}

/** Where a pending call comes from when it is not the session's own: a child (its session and description). */
export interface WaitOrigin {
  sessionId: string;
  label: string;
}

/** data-wait: a call waiting for the person while the turn runs (a child's approval, a question); same id again when it ends. */
export interface LiveWait {
  /** the session whose approval record it is (a child's own session for its calls) */
  sessionId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** what the approval bar shows (a question's text and choices in info.question) */
  info: ApprovalInfo;
  state: 'pending' | 'answered' | 'stopped';
}
