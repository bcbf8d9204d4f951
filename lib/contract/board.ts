/**
 * The board and the inbox: every session of the workspace as it stands, and every call that waits for the
 * person in any of them (subagents included). GET /api/board answers a BoardAnswer; /api/board/events streams
 * one whenever it changes.
 */
import type { ApprovalInfo, PermissionMode } from './protocol';

/**
 * How a session stands: `working` (a turn runs), `waiting` (a call waits for the person), `done` (its last turn
 * ended), `failed` (its last turn ended on an error), `new` (nothing sent yet).
 */
export type BoardState = 'new' | 'working' | 'waiting' | 'done' | 'failed';

/** One session on the board. */
export interface BoardSession {
  id: string;
  title: string;
  mode: PermissionMode;
  updatedAt: number;
  state: BoardState;
  /** working: the step of the running turn (1 = its first model call); null when unknown (another process runs it) */
  step: number | null;
  /** working: the tools running now, in the order they started */
  tools: string[];
  /** working in another process ("clamp run", pid 123): this server cannot see its steps */
  elsewhere: string | null;
  /** failed: the error's words; done: "stopped" when the person stopped it */
  note: string | null;
  /** calls waiting for the person: its own and its subagents' */
  waiting: number;
  /** the model it uses (`provider:model`, as picked or as its last step used); null: the configured one */
  model: string | null;
  /** tokens so far: input (fresh + cache read + cache write) and output */
  tokens: { input: number; output: number };
  /** in US dollars where the model's prices are known, else null */
  costUsd: number | null;
  /** distinct files its calls changed */
  filesChanged: number;
  /** its git worktree, when it has one */
  worktree: { branch: string | null; state: string; path: string | null } | null;
}

/** One call waiting for the person, from any session (a subagent's session included). */
export interface InboxItem {
  /** the session whose call it is (a subagent's own session for its calls); answered through its approvals route */
  sessionId: string;
  /** the listed session it belongs to (the parent of a subagent's session): the one to open */
  topId: string;
  /** that listed session's title */
  topTitle: string;
  toolCallId: string;
  /** the stored approval's id */
  approvalId: string;
  toolName: string;
  input: unknown;
  info: ApprovalInfo | null;
  /**
   * it waits while its turn runs (a subagent's call, a question): the answer alone resumes it; otherwise the
   * turn stopped for it, and the session continues once every call of its message is answered
   */
  live: boolean;
  createdAt: number;
}

export interface BoardAnswer {
  sessions: BoardSession[];
  /** oldest first */
  inbox: InboxItem[];
}

/** POST /api/sessions/[id]/continue: whether the turn resumed, or how many calls of its message still wait. */
export interface ContinueAnswer {
  started: boolean;
  /** calls of the message still waiting for an answer (the turn resumes after the last) */
  waiting: number;
}
