import crypto from 'node:crypto';
import type { Db } from './db';
import { stamp } from './db';

/**
 * The tool-call journal (write-ahead): each call is stored before it runs and marked done after. A
 * call still 'running' that another server process (boot) started was cut short when that process died.
 */

const BOOT = Symbol.for('clamp.bootId');

/** This server process's id (its pid and a random part): a call journaled under another one runs only while that process lives. */
export function bootId(): string {
  const g = globalThis as unknown as Record<symbol, string | undefined>;
  return (g[BOOT] ??= `${process.pid}:${crypto.randomBytes(8).toString('hex')}`);
}

/** Whether the process of a boot id still runs (a second Clamp on the same data dir must not take the first one's calls for dead). */
function bootAlive(id: string): boolean {
  return pidAlive(Number(id.split(':')[0]));
}

/** Whether a process of this machine still runs (EPERM: it runs, as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface JournaledCall {
  sessionId: string;
  toolCallId: string;
  /** the assistant message the call belongs to */
  messageId: string;
  userMessageId: string | null;
  toolName: string;
  input: unknown;
  /** the parts of the call's step the model had written before it (text, reasoning), for a message never saved */
  stepParts: unknown[];
  status: 'running' | 'done' | 'interrupted';
  bootId: string;
  checkpointId: string | null;
  /** the call's result once it ended */
  result: unknown;
  startedAt: number;
}

interface Row {
  session_id: string;
  tool_call_id: string;
  message_id: string;
  user_message_id: string | null;
  tool_name: string;
  input_json: string;
  step_parts_json: string;
  status: JournaledCall['status'];
  boot_id: string;
  checkpoint_id: string | null;
  result_json: string | null;
  started_at: number;
}

function callOf(r: Row): JournaledCall {
  return {
    sessionId: r.session_id,
    toolCallId: r.tool_call_id,
    messageId: r.message_id,
    userMessageId: r.user_message_id,
    toolName: r.tool_name,
    input: JSON.parse(r.input_json) as unknown,
    stepParts: JSON.parse(r.step_parts_json) as unknown[],
    status: r.status,
    bootId: r.boot_id,
    checkpointId: r.checkpoint_id,
    result: r.result_json === null ? undefined : (JSON.parse(r.result_json) as unknown),
    startedAt: r.started_at,
  };
}

/** Store a call as running, before it runs (a call run again, after an approval, is journaled afresh). */
export function journalStart(db: Db, c: Omit<JournaledCall, 'status' | 'bootId' | 'startedAt' | 'result'>): void {
  db.prepare(
    `INSERT INTO tool_calls (session_id, tool_call_id, message_id, user_message_id, tool_name, input_json, step_parts_json, status, boot_id, checkpoint_id, started_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET message_id = excluded.message_id, user_message_id = excluded.user_message_id,
       tool_name = excluded.tool_name, input_json = excluded.input_json, step_parts_json = excluded.step_parts_json, status = 'running',
       boot_id = excluded.boot_id, checkpoint_id = excluded.checkpoint_id, result_json = NULL, started_at = excluded.started_at, finished_at = NULL`,
  ).run(c.sessionId, c.toolCallId, c.messageId, c.userMessageId, c.toolName, JSON.stringify(c.input ?? null), JSON.stringify(c.stepParts), bootId(), c.checkpointId, stamp());
}

/** Whether a session journaled a call by this id. */
export function isJournaled(db: Db, sessionId: string, toolCallId: string): boolean {
  return !!db.prepare('SELECT 1 FROM tool_calls WHERE session_id = ? AND tool_call_id = ?').get(sessionId, toolCallId);
}

/** The checkpoint taken before a journaled call. */
export function journalCheckpoint(db: Db, sessionId: string, toolCallId: string, checkpointId: string): void {
  db.prepare('UPDATE tool_calls SET checkpoint_id = ? WHERE session_id = ? AND tool_call_id = ?').run(checkpointId, sessionId, toolCallId);
}

/** The call ended, with its result. */
export function journalDone(db: Db, sessionId: string, toolCallId: string, result: unknown): void {
  db.prepare("UPDATE tool_calls SET status = 'done', result_json = ?, finished_at = ? WHERE session_id = ? AND tool_call_id = ?").run(
    result === undefined ? null : JSON.stringify(result),
    stamp(),
    sessionId,
    toolCallId,
  );
}

/** Every journaled call of these assistant messages, oldest first. */
export function callsOfMessages(db: Db, sessionId: string, messageIds: readonly string[]): JournaledCall[] {
  const stmt = db.prepare('SELECT * FROM tool_calls WHERE session_id = ? AND message_id = ? ORDER BY started_at');
  return messageIds.flatMap((m) => (stmt.all(sessionId, m) as Row[]).map(callOf));
}

/** Calls of a session still marked running by another boot: the server died while they ran. Oldest first. */
export function interruptedCalls(db: Db, sessionId?: string): JournaledCall[] {
  const rows = (
    sessionId === undefined
      ? db.prepare("SELECT * FROM tool_calls WHERE status = 'running' AND boot_id != ? ORDER BY started_at").all(bootId())
      : db.prepare("SELECT * FROM tool_calls WHERE status = 'running' AND boot_id != ? AND session_id = ? ORDER BY started_at").all(bootId(), sessionId)
  ) as Row[];
  return rows.filter((r) => !bootAlive(r.boot_id)).map(callOf);
}

/** Mark calls as interrupted once the conversation says so. */
export function markInterrupted(db: Db, sessionId: string, toolCallIds: readonly string[]): void {
  const stmt = db.prepare("UPDATE tool_calls SET status = 'interrupted', finished_at = ? WHERE session_id = ? AND tool_call_id = ?");
  for (const id of toolCallIds) stmt.run(stamp(), sessionId, id);
}
