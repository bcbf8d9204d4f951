import type { RecordedAnswer } from './host';

/**
 * Calls that wait for a person while the turn runs (a child's approval, ask_user's question): the
 * answer is recorded in the store by the approvals route, which then wakes the waiter here. The hub
 * lives on globalThis because the route and the loop may be separate module instances of one process;
 * the waiter also checks the store every WAIT_POLL_MS, so an answer is never missed.
 */
const HUB = Symbol.for('clamp.waits');

function hub(): Map<string, Set<() => void>> {
  const g = globalThis as unknown as Record<symbol, Map<string, Set<() => void>> | undefined>;
  return (g[HUB] ??= new Map());
}

const keyOf = (sessionId: string, toolCallId: string) => `${sessionId}\n${toolCallId}`;

/** An answer was recorded for this call: wake whoever waits for it. Never throws. */
export function wakeWaiters(sessionId: string, toolCallId: string): void {
  for (const wake of hub().get(keyOf(sessionId, toolCallId)) ?? []) wake();
}

/**
 * Wait until answerFor() has an answer, or the signal aborts ('stopped'). Resolves, never rejects.
 */
export function waitForAnswer(o: { sessionId: string; toolCallId: string; answerFor: () => RecordedAnswer | undefined; signal: AbortSignal; pollMs: number }): Promise<RecordedAnswer | 'stopped'> {
  return new Promise((resolve) => {
    if (o.signal.aborted) return resolve('stopped');
    const key = keyOf(o.sessionId, o.toolCallId);
    const set = hub().get(key) ?? new Set();
    hub().set(key, set);
    const check = () => {
      let a: RecordedAnswer | undefined;
      try {
        a = o.answerFor();
      } catch {
        // the store is closing (shutdown): the turn's signal ends the wait
      }
      if (a) done(a);
    };
    const onAbort = () => done('stopped');
    const timer = setInterval(check, o.pollMs);
    timer.unref?.();
    const done = (v: RecordedAnswer | 'stopped') => {
      clearInterval(timer);
      set.delete(check);
      if (set.size === 0) hub().delete(key);
      o.signal.removeEventListener('abort', onAbort);
      resolve(v);
    };
    set.add(check);
    o.signal.addEventListener('abort', onAbort);
    check();
  });
}
