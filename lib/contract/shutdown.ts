type Hook = () => void | Promise<void>;
const KEY = Symbol.for('clamp.shutdownHooks');

function hooks(): Set<Hook> {
  const g = globalThis as unknown as Record<symbol, Set<Hook> | undefined>;
  return (g[KEY] ??= new Set<Hook>());
}

/** Register work to do when the launcher stops (kill tasks, close the database). Shared process-wide. */
export function onShutdown(hook: Hook): () => void {
  hooks().add(hook);
  return () => hooks().delete(hook);
}

/** Run every hook, each bounded in time; never throws. */
export async function runShutdownHooks(timeoutMs = 5000): Promise<void> {
  await Promise.all(
    [...hooks()].map((h) =>
      Promise.race([Promise.resolve().then(h).catch(() => undefined), new Promise((r) => setTimeout(r, timeoutMs).unref())]),
    ),
  );
}
