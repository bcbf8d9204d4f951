import type { UIMessageChunk } from 'ai';
import { tapStream } from '../contract/stream-tap';

const PROGRESS = Symbol.for('clamp.turnProgress');

/** What this process saw of a session's latest turn, from its stream: the board reads it. */
export interface TurnProgress {
  /** the stream still flows */
  running: boolean;
  /** the step the turn is in: its model call under way (a step has begun once the one before it finished) */
  step: number;
  /** calls running now, by tool call id: the tool's name (a call waiting for approval is not running) */
  tools: Map<string, string>;
  /** how it ended: undefined while it runs */
  outcome?: 'done' | 'failed' | 'stopped';
  /** the error's words when it failed */
  error?: string;
  startedAt: number;
  endedAt?: number;
}

function progressMap(): Map<string, TurnProgress> {
  const g = globalThis as unknown as Record<symbol, Map<string, TurnProgress> | undefined>;
  return (g[PROGRESS] ??= new Map());
}

/** The latest turn of a session this process ran, or undefined. */
export function turnProgress(sessionId: string): TurnProgress | undefined {
  return progressMap().get(sessionId);
}

/** One chunk's effect on the turn's progress. */
function observe(p: TurnProgress, chunk: UIMessageChunk): void {
  switch (chunk.type) {
    // a request not yet answered has sent no start-step: the next step begins when one finishes
    case 'finish-step':
      p.step++;
      break;
    case 'tool-input-available':
      p.tools.set(chunk.toolCallId, chunk.toolName);
      break;
    case 'tool-approval-request':
    case 'tool-output-available':
    case 'tool-output-error':
    case 'tool-output-denied':
    case 'tool-input-error':
      p.tools.delete(chunk.toolCallId);
      break;
    case 'error':
      p.outcome = 'failed';
      p.error = chunk.errorText;
      break;
    case 'abort':
      p.outcome ??= 'stopped';
      break;
    default:
      break;
  }
}

function end(p: TurnProgress, outcome: TurnProgress['outcome']): void {
  if (!p.running) return;
  p.running = false;
  p.tools.clear();
  p.outcome ??= outcome;
  p.endedAt = Date.now();
}

/**
 * The turn's stream, watched: each step begun, each call running and how the turn ends are kept for the board
 * (turnProgress). The chunks pass unchanged.
 */
export function trackTurn(sessionId: string, stream: ReadableStream<UIMessageChunk>): ReadableStream<UIMessageChunk> {
  const p: TurnProgress = { running: true, step: 1, tools: new Map(), startedAt: Date.now() };
  progressMap().set(sessionId, p);
  return tapStream(
    stream,
    (chunk) => {
      observe(p, chunk);
      return chunk;
    },
    () => end(p, 'done'),
  );
}

/** The turn's progress marked ended when its stream can no longer say so (the page went away, it was stopped). */
export function endTurnProgress(sessionId: string): void {
  const p = progressMap().get(sessionId);
  if (p) end(p, 'stopped');
}
