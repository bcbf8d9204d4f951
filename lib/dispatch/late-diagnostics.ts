/**
 * Diagnostics that outlive their call's result. A write call waits DIAGNOSTICS_WAIT_MS for its language
 * server; when the answer has not come, its result goes back "pending" and the check goes on. Here, per
 * session: the checks still going on, the reports that arrived, who shows each to the person (the running
 * turn's stream, else the session's store, through the diagnostics service) and which the model has not read
 * yet (dispatch puts those in front of the session's next tool result; a new user message carries what is left).
 */
import type { ToolContext, ToolResult } from '../contract/types';
import { diagnosticsServiceOf, type DiagnosticsReport, type LateDiagnostics, type LateDiagnosticsAnswer } from '../contract/diagnostics';

interface Entry {
  lateId: string;
  toolCallId: string;
  toolName: string;
  paths: string[];
  /** set when the report arrived */
  late?: LateDiagnostics;
  /** the report's text for the model ('' when the change added no error) */
  text?: string;
  /** the model has read it */
  told: boolean;
  /** the person's page has it (a turn's stream wrote it, or the store kept it) */
  shown: boolean;
  keep?: (late: LateDiagnostics) => void;
}

/** One running turn's way to the page: what arrives while it is attached is written to its stream. */
export interface LateFeed {
  /** from now on, write arrivals (and those buffered so far) with `write` */
  attach(write: (late: LateDiagnostics) => void): void;
  /** the stream can take no more: buffer arrivals until close() */
  detach(): void;
  /** the turn's conversation is saved: what was buffered goes to the store, and the feed ends (idempotent) */
  close(): void;
}

interface SessionLate {
  entries: Entry[];
  feeds: Set<FeedState>;
}

interface FeedState {
  write?: (late: LateDiagnostics) => void;
  buffered: { entry: Entry; late: LateDiagnostics }[];
}

/** Reports kept per session for the page to fetch, past which the oldest delivered ones are forgotten. */
const KEPT_PER_SESSION = 100;
const KEY = Symbol.for('clamp.lateDiagnostics');

function sessions(): Map<string, SessionLate> {
  const g = globalThis as unknown as Record<symbol, Map<string, SessionLate> | undefined>;
  return (g[KEY] ??= new Map());
}

function sessionOf(sessionId: string): SessionLate {
  const all = sessions();
  let s = all.get(sessionId);
  if (!s) all.set(sessionId, (s = { entries: [], feeds: new Set() }));
  return s;
}

function forgetOld(s: SessionLate): void {
  while (s.entries.length > KEPT_PER_SESSION) {
    const i = s.entries.findIndex((e) => e.told && e.shown);
    if (i < 0) return;
    s.entries.splice(i, 1);
  }
}

function arrive(sessionId: string, entry: Entry, report: DiagnosticsReport): void {
  const late: LateDiagnostics = { lateId: entry.lateId, toolCallId: entry.toolCallId, toolName: entry.toolName, paths: entry.paths, diagnostics: report.meta, at: Date.now() };
  entry.late = late;
  entry.text = report.text;
  const s = sessionOf(sessionId);
  const feed = [...s.feeds][0];
  if (feed) {
    if (!feed.write) {
      feed.buffered.push({ entry, late });
      return;
    }
    try {
      feed.write(late);
      entry.shown = true;
      return;
    } catch {
      // the turn's stream has just closed: the store keeps it
    }
  }
  keep(entry, late);
}

function keep(entry: Entry, late: LateDiagnostics): void {
  try {
    entry.keep?.(late);
  } catch {
    // the page still fetches it from memory; a reload may not show it
  }
  entry.shown = true;
}

/**
 * A write call's diagnostics are pending: follow its late report. Without a session (the tool CLI) there is
 * nobody to deliver it to, and it is dropped. Never throws.
 */
export function expectLate(ctx: ToolContext, toolName: string, paths: string[], report: DiagnosticsReport): void {
  const lateId = report.meta.lateId;
  const { sessionId, callId } = ctx;
  if (!report.late || !lateId || !sessionId || !callId) return;
  const service = diagnosticsServiceOf(ctx.services);
  const entry: Entry = { lateId, toolCallId: callId, toolName, paths, told: false, shown: false, keep: service?.keepLate ? (l) => service.keepLate!(sessionId, l) : undefined };
  const s = sessionOf(sessionId);
  s.entries.push(entry);
  forgetOld(s);
  report.late.then(
    (r) => arrive(sessionId, entry, r),
    (err: unknown) => arrive(sessionId, entry, { text: `Diagnostics unavailable: ${err instanceof Error ? err.message : String(err)}; this change was not checked.`, meta: { ...report.meta, state: 'failed', note: String(err), lateId } }),
  );
}

const NOTE_HEAD = '[Clamp: diagnostics of earlier changes, which arrived after their results.';

/**
 * The late reports the model has not read, as one note of at most `maxBytes` (oldest first; what does not fit
 * waits for the next one), and their ids; marks them read. Undefined when there are none or none fits.
 */
export function takeLateNotes(sessionId: string, maxBytes = Number.POSITIVE_INFINITY): { text: string; lateIds: string[] } | undefined {
  const s = sessions().get(sessionId);
  const taken: Entry[] = [];
  let text = NOTE_HEAD;
  for (const e of s?.entries ?? []) {
    if (!e.late || e.told) continue;
    const which = `${e.toolName} of ${e.paths.join(', ') || 'its files'} (call ${e.toolCallId})`;
    const line = e.text ? `${which}: ${e.text}` : `${which}: no new errors (${e.late.diagnostics.servers.join(', ')}).`;
    if (Buffer.byteLength(`${text}\n${line}]`) > maxBytes) break;
    text += `\n${line}`;
    taken.push(e);
  }
  if (taken.length === 0) return undefined;
  for (const e of taken) e.told = true;
  forgetOld(s!);
  return { text: `${text}]`, lateIds: taken.map((e) => e.lateId) };
}

/**
 * The result with the session's unread late reports in front (a result the model reads: not one that waits for
 * approval). They take at most half the cap and only the room the result leaves under it, so the exit clamp never
 * cuts the result's own text for them (a long command's tail stays); what does not fit waits for a later result or
 * the next message.
 */
export function withLateNotes(r: ToolResult, ctx: ToolContext): ToolResult {
  if (!ctx.sessionId || r.status === 'approval-required') return r;
  const cap = ctx.budget.TOOL_OUTPUT_MAX_BYTES;
  const room = Math.min(Math.floor(cap / 2), cap - Buffer.byteLength(r.output) - 2);
  if (room <= 0) return r;
  const notes = takeLateNotes(ctx.sessionId, room);
  return notes ? { ...r, output: `${notes.text}\n\n${r.output}` } : r;
}

/**
 * A running turn's feed of the session's late reports. Made before the turn's messages could be saved
 * again, so that nothing arriving meanwhile goes to the store only to be overwritten by the turn's save.
 */
export function lateFeed(sessionId: string): LateFeed {
  const s = sessionOf(sessionId);
  const state: FeedState = { buffered: [] };
  s.feeds.add(state);
  let closed = false;
  return {
    attach(write) {
      if (closed) return;
      state.write = write;
      for (const b of state.buffered.splice(0)) {
        write(b.late);
        b.entry.shown = true;
      }
    },
    detach() {
      state.write = undefined;
    },
    close() {
      if (closed) return;
      closed = true;
      state.write = undefined;
      s.feeds.delete(state);
      for (const b of state.buffered.splice(0)) keep(b.entry, b.late);
    },
  };
}

/** What the page polls for while its cards wait: the session's arrived reports, and the ids still being checked. */
export function lateDiagnosticsOf(sessionId: string): LateDiagnosticsAnswer {
  const entries = sessions().get(sessionId)?.entries ?? [];
  return { arrived: entries.flatMap((e) => (e.late ? [e.late] : [])), checking: entries.filter((e) => !e.late).map((e) => e.lateId) };
}
