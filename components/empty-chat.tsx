'use client';

import { useStatus } from './api';

/**
 * What an empty conversation says: what to ask for; with the scripted demo model, that any message starts
 * its script (what is typed does not change what it does).
 */
export function EmptyChat() {
  const scripted = useStatus().data?.model.scripted;
  if (scripted) {
    return (
      <div className="mx-auto max-w-md space-y-1 px-4 py-12 text-center text-sm text-zinc-600 dark:text-zinc-400" data-testid="demo-note">
        <p className="font-medium text-zinc-800 dark:text-zinc-200">This is the demo: a scripted model, not a real one.</p>
        <p>Send any message to start its script. It plays the same steps whatever you type, and asks for your approval where a real session would.</p>
      </div>
    );
  }
  return <p className="py-12 text-center text-sm text-zinc-500">Ask Clamp to read, search, change or run something in this workspace.</p>;
}
