import type { StopCondition, ToolSet } from 'ai';

const STEERS = Symbol.for('clamp.steerRequests');

/** Sessions whose person asked for "Send now": their running turn ends at the next safe point. */
function steers(): Set<string> {
  const g = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  return (g[STEERS] ??= new Set());
}

/**
 * Ask a session's running turn to end at the next safe point: after the tool calls of the current
 * step have finished (their results are stored), before the next model step. The turn then ends
 * normally, and the page sends the person's message.
 */
export function requestSteer(sessionId: string): void {
  steers().add(sessionId);
}

/** Forget a request (a turn starts, or ends): a steer applies to the turn that was running. */
export function clearSteer(sessionId: string): void {
  steers().delete(sessionId);
}

/** Whether a steer was asked for the session's running turn. */
export function steerRequested(sessionId: string): boolean {
  return steers().has(sessionId);
}

/** A stopWhen condition: true once the person asked to steer (checked by the SDK after each step). */
export function steered<T extends ToolSet>(sessionId: string): StopCondition<T> {
  return () => steerRequested(sessionId);
}
