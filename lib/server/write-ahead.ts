import fs from 'node:fs';
import path from 'node:path';
import type { AgentHost } from '../agent/host';
import { BUDGET } from '../contract/budget';
import type { ClampMessage, InterruptedNote } from '../contract/protocol';
import { traitsOf, type ToolResult } from '../contract/types';
import { cutTail, formatBytes } from '../contract/text';
import { diskFullText, failedForRoom } from '../contract/disk-full';
import { callRunPrefix } from '../exec/runner';
import { toolSummaryData } from '../agent/tool-summaries';
import { createToolRegistry } from '../dispatch/all-tools';
import { lookupTool } from '../dispatch/registry';
import { checkpointBeforeChange } from '../checkpoints/session';
import type { Db } from '../store/db';
import { listCheckpoints } from '../store/checkpoints';
import { loadMessages, saveMessages } from '../store/messages';
import { callsOfMessages, interruptedCalls, journalCheckpoint, journalDone, journalStart, markInterrupted, type JournaledCall } from '../store/tool-calls';

/**
 * Nothing lost in a crash: every call is journaled before it runs (with the words of its step so far)
 * and the turn's checkpoint is taken before its first change. After a restart, a call the dead server
 * was running becomes an output-error part "Interrupted by a restart …" with the end of its log, which
 * is what the model reads next; a data-interrupted part names the checkpoint taken before it.
 */

export interface Place {
  sessionId: string;
  workspace: string;
  dataDir: string;
}

/** The host's beforeRun/afterRun: journal the call, then the checkpoint before a turn's first change (a full disk refuses the call). Never throws. */
export function writeAheadHooks(db: Db, o: Place): Pick<AgentHost, 'beforeRun' | 'afterRun'> {
  return {
    beforeRun: async (call) => {
      try {
        journalStart(db, { sessionId: o.sessionId, toolCallId: call.toolCallId, messageId: call.messageId, userMessageId: call.userMessageId, toolName: call.toolName, input: call.input, stepParts: call.stepParts, checkpointId: null });
      } catch (err) {
        console.error('clamp: could not journal the call:', err);
      }
      try {
        const taken = await checkpointBeforeChange(db, o, { sessionId: o.sessionId, userMessageId: call.userMessageId, toolCallId: call.toolCallId, effect: call.effect, input: call.input });
        const before = taken ?? listCheckpoints(db, o.sessionId).at(-1);
        if (before) journalCheckpoint(db, o.sessionId, call.toolCallId, before.id);
      } catch (err) {
        // no room for the checkpoint: the change it would guard does not run (it could not be rewound)
        if (failedForRoom(err, o.dataDir)) return checkpointRefusal(call.toolName, o.dataDir, err);
        console.error(`clamp: the checkpoint before ${call.toolName} failed (the call runs anyway):`, err);
      }
    },
    afterRun: (toolCallId, result) => {
      try {
        journalDone(db, o.sessionId, toolCallId, result);
      } catch (err) {
        console.error('clamp: could not journal the end of a call:', err);
      }
    },
  };
}

/** The result of a call whose checkpoint found the disk full: not run, and why, for the model to tell the person. */
export function checkpointRefusal(toolName: string, dataDir: string, err: unknown): ToolResult {
  const why = diskFullText(`The checkpoint before ${toolName}`, dataDir, err, `${toolName} was not run, so nothing in the workspace changed.`);
  return { status: 'error', output: `${why} Tell the person; call ${toolName} again once there is room.`, truncation: null };
}

const LOG_CLOCK_SLACK_MS = 100;

/** When a log's run began, from its name (lib/exec/run-logs.ts logPathsFor: the ISO time with - for : and .). */
function logStart(name: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z-/.exec(name);
  return m ? Date.parse(`${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`) : NaN;
}

/**
 * The combined log of a call's command, found by the call's id in the data dir's logs. Another session
 * may have had a call of the same id (ids are a session's own): given the call's start, the log is the
 * first one begun at or after it.
 */
export function callLogPath(dataDir: string, toolCallId: string, startedAt?: number): string | null {
  const dir = path.join(dataDir, 'logs');
  const re = new RegExp(`-${callRunPrefix(toolCallId)}-[0-9a-f]{8}\\.log$`);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => re.test(n)).sort();
  } catch {
    return null;
  }
  // the journal's clock may run a few ms ahead of the run's (it never repeats a time)
  const own = startedAt === undefined ? undefined : names.find((n) => logStart(n) >= startedAt - LOG_CLOCK_SLACK_MS);
  const name = own ?? names[names.length - 1];
  return name ? path.join(dir, name) : null;
}

/** What the model and the page read for an interrupted call. */
export function interruptedText(call: Pick<JournaledCall, 'toolName'>, logPath: string | null, maxBytes = BUDGET.INTERRUPTED_LOG_MAX_BYTES): string {
  const lines = [
    `Interrupted by a restart: the Clamp server stopped while this ${call.toolName} call was running, so it did not finish and its result is unknown; anything it was changing may be half done.`,
    'Check the state it left (read the files it touched, or run a read-only command) before going on. The person can rewind to the checkpoint taken before it.',
  ];
  if (logPath) {
    let text = '';
    try {
      const fd = fs.openSync(logPath, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const n = Math.min(size, maxBytes * 2);
        const buf = Buffer.alloc(n);
        fs.readSync(fd, buf, 0, n, size - n);
        const cut = cutTail(buf.toString('utf8'), maxBytes);
        text = cut.text;
        lines.push(size === 0 ? `Its log captured nothing (${logPath}).` : `Its log captured ${formatBytes(size)}${cut.cut || size > n ? `; the last ${formatBytes(cut.shownBytes)}` : ''} (all of it in ${logPath}):`);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      lines.push(`Its log ${logPath} could not be read.`);
    }
    if (text) lines.push(text.trimEnd());
  }
  return lines.join('\n');
}

type AnyPart = { type: string; toolCallId?: string; state?: string; [k: string]: unknown };

/**
 * The conversation with the calls of a step the crash cut short written in: the interrupted ones as
 * output-error parts, the ones that had finished with their results, and the step's words when the
 * message was never saved. `calls` are every journaled call of the messages concerned, oldest first.
 */
export function withInterrupted(messages: ClampMessage[], calls: JournaledCall[], dataDir: string): ClampMessage[] {
  const out = messages.map((m) => ({ ...m, parts: [...m.parts] as AnyPart[] }));
  const stepAdded = new Set<string>();
  const reg = createToolRegistry();
  for (const call of calls) {
    if (call.status === 'done' && call.result === undefined) continue;
    let msg = out.find((m) => m.id === call.messageId && m.role === 'assistant');
    if (!msg) {
      msg = { id: call.messageId || `interrupted-${call.toolCallId}`, role: 'assistant', parts: [] };
      out.push(msg);
    }
    // the card's header names the call by its tool's summary, as a live card does (not its input as JSON)
    const summarised = msg.parts.some((p) => p.type === 'data-tool-summary' && (p.data as { toolCallId?: string } | undefined)?.toolCallId === call.toolCallId);
    const data = summarised ? undefined : toolSummaryData(reg, call.toolCallId, call.toolName, call.input, call.status === 'running' ? undefined : (call.result as ToolResult | undefined));
    if (data) msg.parts.push({ type: 'data-tool-summary', id: `summary-${call.toolCallId}`, data });
    const at = msg.parts.findIndex((p) => p.toolCallId === call.toolCallId && p.type !== 'data-interrupted');
    if (call.status !== 'running') {
      // finished before the crash: put back what the unsaved step lost
      if (at < 0) {
        addStep(msg, call, calls, stepAdded);
        msg.parts.push({ type: `tool-${call.toolName}`, toolCallId: call.toolCallId, state: 'output-available', input: call.input, output: call.result });
      }
      continue;
    }
    const tool = lookupTool(reg, call.toolName);
    const logPath = tool && traitsOf(tool).command ? callLogPath(dataDir, call.toolCallId, call.startedAt) : null;
    const errorText = interruptedText(call, logPath);
    if (at >= 0) {
      const p = msg.parts[at]!;
      if (p.state === 'output-available' || p.state === 'output-error' || p.state === 'output-denied') continue;
      msg.parts[at] = { ...p, state: 'output-error', errorText };
    } else {
      addStep(msg, call, calls, stepAdded);
      msg.parts.push({ type: `tool-${call.toolName}`, toolCallId: call.toolCallId, state: 'output-error', input: call.input, errorText });
    }
    const note: InterruptedNote = { toolCallId: call.toolCallId, toolName: call.toolName, userMessageId: call.userMessageId, checkpointId: call.checkpointId, logPath };
    msg.parts.push({ type: 'data-interrupted', id: `interrupted-${call.toolCallId}`, data: note });
  }
  return out as ClampMessage[];
}

/** The words of the step a call was made in (once per message: the longest draft of the calls after its last saved part). */
function addStep(msg: { id: string; parts: AnyPart[] }, call: JournaledCall, calls: JournaledCall[], added: Set<string>): void {
  if (added.has(msg.id)) return;
  added.add(msg.id);
  const present = new Set(msg.parts.map((p) => p.toolCallId).filter(Boolean));
  const drafts = calls.filter((c) => c.messageId === call.messageId && !present.has(c.toolCallId)).map((c) => c.stepParts as AnyPart[]);
  const longest = drafts.reduce((a, b) => (b.length > a.length ? b : a), [] as AnyPart[]);
  for (const p of longest) {
    if ((p.type === 'text' || p.type === 'reasoning') && !p.text) continue;
    msg.parts.push(p.type === 'text' || p.type === 'reasoning' ? { ...p, state: 'done' } : p);
  }
}

/**
 * After a restart: write every call a dead server left running into its session's conversation as
 * interrupted, and mark it so in the journal. Returns how many calls. Never throws.
 */
export function recoverInterrupted(db: Db, dataDir: string, sessionId?: string): number {
  try {
    const calls = interruptedCalls(db, sessionId);
    const bySession = new Map<string, JournaledCall[]>();
    for (const c of calls) bySession.set(c.sessionId, [...(bySession.get(c.sessionId) ?? []), c]);
    for (const [sid, list] of bySession) {
      const all = callsOfMessages(db, sid, [...new Set(list.map((c) => c.messageId))]).filter((c) => c.status !== 'interrupted');
      db.transaction(() => {
        saveMessages(db, sid, withInterrupted(loadMessages(db, sid), all, dataDir));
        markInterrupted(db, sid, list.map((c) => c.toolCallId));
      })();
    }
    return calls.length;
  } catch (err) {
    console.error('clamp: could not recover the calls a restart interrupted:', err);
    return 0;
  }
}
