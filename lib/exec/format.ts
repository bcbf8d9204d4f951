import type { Truncation } from '../contract/types';
import { byteLength, countLines, cutHead, cutTail, decodeCut, fitWithNote, formatBytes, formatCount, formatDuration, tailBytes } from '../contract/text';
import path from 'node:path';
import { isDiskFull } from '../contract/disk-full';
import type { CaptureSnapshot } from './ring';
import type { RunResult, StreamName } from './runner';

/** Output that looks like a failure keeps its head too: the first error is often the cause. */
const ERRORISH = /error|fail|exception|traceback|panic/i;

/**
 * How a run ended, in words that cannot be confused with each other: a normal exit gives its
 * code; a kill by Clamp says who and why; a signal from elsewhere says so.
 */
export function statusLine(r: Pick<RunResult, 'exitCode' | 'signal' | 'killedBy' | 'timeoutMs' | 'spawnError'>): string {
  if (r.spawnError) return `failed to start: ${r.spawnError}`;
  if (r.killedBy === 'timeout') return `killed: timed out after ${formatDuration(r.timeoutMs ?? 0)}`;
  if (r.killedBy === 'user') return 'killed by the user';
  if (r.killedBy === 'shutdown') return 'killed: Clamp was shutting down';
  if (r.killedBy === 'limit') return 'killed: it hit the sandbox\'s process limit (see the note)';
  if (r.exitCode !== null) return `exit code ${r.exitCode}`;
  return `killed by signal ${r.signal ?? 'unknown'} (not sent by Clamp)`;
}

/** The text of a snapshot: whole when nothing was dropped, else head and tail decoded on character boundaries. */
function decode(s: CaptureSnapshot): { whole?: string; head: string; tail: string } {
  if (s.gapBytes === 0) {
    const whole = Buffer.concat([s.head, s.tail]).toString('utf8');
    return { whole, head: whole, tail: whole };
  }
  // drop a character the head cut in two, and the continuation bytes the tail starts with
  return { head: decodeCut(s.head, { end: true }), tail: decodeCut(s.tail, { start: true }) };
}

interface StreamView {
  body: string;
  /** the stream's text that body shows (without marker and note) */
  kept: string;
  cut: boolean;
  shownBytes: number;
  omittedBytes: number;
  omittedLines: number;
}

function newlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** One stream's section body within room bytes (plus its note). */
function renderStream(name: StreamName, s: CaptureSnapshot, room: number, failed: boolean, logPath: string, logError?: string): StreamView {
  const text = decode(s);
  if (s.totalBytes === 0) return { body: '(empty)', kept: '', cut: false, shownBytes: 0, omittedBytes: 0, omittedLines: 0 };
  if (text.whole !== undefined && byteLength(text.whole) <= room) {
    const body = text.whole.endsWith('\n') ? text.whole.slice(0, -1) : text.whole;
    return { body, kept: body, cut: false, shownBytes: s.totalBytes, omittedBytes: 0, omittedLines: 0 };
  }
  room = Math.max(0, room);
  const keepHead = failed || ERRORISH.test(tailBytes(text.tail, Math.max(room, 1)));
  const head = keepHead ? cutHead(text.head, Math.floor(room / 3)).text : '';
  const tail = cutTail(text.tail, room - byteLength(head)).text;
  const shownBytes = byteLength(head) + byteLength(tail);
  const omittedBytes = Math.max(0, s.totalBytes - shownBytes);
  const first = newlines(head) + 1;
  const last = s.totalLines - countLines(tail);
  const omittedLines = Math.max(0, last - first + 1);
  const marker =
    omittedLines > 0
      ? `… [${omittedLines === 1 ? `line ${formatCount(first)}` : `lines ${formatCount(first)}–${formatCount(last)}`} omitted: ${formatBytes(omittedBytes)}] …`
      : `… [${formatBytes(omittedBytes)} omitted within line ${formatCount(first)}] …`;
  const where = logError
    ? `The log file could not be written (${logError})${isDiskFull(logError) ? `: the disk holding ${path.dirname(logPath)} is full — free space there` : ''}; rerun with the output redirected to a file in the workspace to see all of it.`
    : `Full ${name}: ${logPath} — read it with read_file (offset/limit) or search it with grep.`;
  const note =
    `[${name} cut: ${formatBytes(shownBytes)} of ${formatBytes(s.totalBytes)} shown (${keepHead ? 'the start and the end' : 'the end'}); ` +
    `${formatCount(omittedBytes)} bytes and ${formatCount(omittedLines)} lines omitted. ${where}]`;
  const headPart = head === '' ? '' : head.endsWith('\n') ? head : `${head}\n`;
  const tailPart = tail.endsWith('\n') ? tail.slice(0, -1) : tail;
  return { body: `${headPart}${marker}\n${tailPart}\n${note}`, kept: head + tail, cut: true, shownBytes, omittedBytes, omittedLines };
}

export interface FormatOptions {
  /** the whole text must fit here (the exit clamp must not cut it again) */
  maxBytes: number;
  /** notes from the tool (a clamped timeout …), shown under the status */
  notes?: string[];
  /** quoted in the timeout's next step */
  timeoutMaxMs: number;
}

export interface FormattedRun {
  text: string;
  truncation: Truncation | null;
  hint?: string;
}

/** The follow-up the model needs after a kill (what to do next), if any. */
function nextStep(r: RunResult, timeoutMaxMs: number): string | undefined {
  if (r.killedBy === 'timeout') {
    return (
      `It did not finish within ${formatDuration(r.timeoutMs ?? 0)}; its whole process group was stopped. ` +
      `If it needs longer, pass a larger timeout_ms (at most ${formatCount(timeoutMaxMs)}), or run it with background: true and follow it with task_output.`
    );
  }
  if (r.killedBy === 'user') return 'The user stopped it. Do not run it again unless the user asks.';
  if (r.killedBy === 'shutdown') return 'Clamp stopped it while shutting down.';
  return undefined;
}

/**
 * What the model reads for a finished run: status, duration, notes, then stdout and stderr.
 * Over budget each stream keeps its end (and its start when it looks like a failure), says what
 * was cut in bytes and lines, and names its log file. The whole text fits in maxBytes.
 */
export function formatRun(r: RunResult, o: FormatOptions): FormattedRun {
  const notes = [...(o.notes ?? [])];
  if (r.leftoverStopped) notes.push('processes the command left running were stopped when it exited; start servers and watchers with background: true.');
  if (r.pipesAbandoned) notes.push('a process that left the command’s process group kept its output open; Clamp stopped reading it (it may still be running).');
  const step = nextStep(r, o.timeoutMaxMs);
  const prefix =
    `${statusLine(r)}\n` +
    (step ? `${step}\n` : '') +
    `duration: ${formatDuration(r.durationMs)}\n` +
    notes.map((n) => `note: ${n}\n`).join('');
  const failed = r.killedBy !== null || r.exitCode !== 0;
  // the room left by the status lines and both streams' markers and notes (measured) is split between the streams
  const build = (room: number) => {
    const a = r.stdout.totalBytes;
    const b = r.stderr.totalBytes;
    const half = Math.floor(room / 2);
    const [ra, rb] = a <= half ? [a, room - a] : b <= half ? [room - b, b] : [half, room - half];
    const out = renderStream('stdout', r.stdout, ra, failed, r.logPaths.stdout, r.logError);
    const err = renderStream('stderr', r.stderr, rb, failed, r.logPaths.stderr, r.logError);
    return { out, err, text: out.kept + err.kept, full: `${prefix}stdout:\n${out.body}\nstderr:\n${err.body}` };
  };
  const fit = fitWithNote(o.maxBytes, build, (v) => v.full);
  const built = { ...fit.cut, text: fit.text };
  const { out, err } = built;
  if (!out.cut && !err.cut) return { text: built.text, truncation: null, ...(step ? { hint: step } : {}) };
  const spillPath = out.cut ? r.logPaths.stdout : r.logPaths.stderr;
  const logs = `Full output: stdout ${r.logPaths.stdout}, stderr ${r.logPaths.stderr}; read a part with read_file (offset/limit) or search it with grep.`;
  return {
    text: built.text,
    truncation: {
      unit: 'bytes',
      shown: out.shownBytes + err.shownBytes,
      total: r.stdout.totalBytes + r.stderr.totalBytes,
      omittedLines: out.omittedLines + err.omittedLines,
      ...(r.logError ? {} : { spillPath }),
      by: 'tool',
    },
    hint: step ? `${step} ${logs}` : logs,
  };
}
