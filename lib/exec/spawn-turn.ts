/**
 * Starting a process is synchronous in Node (fork and exec on the event loop: ~5 ms here for a small
 * process, ~15 ms for the server), and so is the work around it (pipes, logs, the sandbox's
 * arguments). When many sessions start commands at once, those starts all ran in one drain of the
 * microtask queue, and the page and the API waited behind the whole burst (seconds with 20 sessions
 * on 2 cores). Each start now takes its turn: one per pass of the event loop, in the order asked,
 * with the network's waiting requests served in between.
 */
let last: Promise<void> = Promise.resolve();

/** Resolves when it is this caller's turn to start a process: after every earlier caller's, one event-loop pass later. */
export function spawnTurn(): Promise<void> {
  const mine = last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  last = mine;
  return mine;
}
