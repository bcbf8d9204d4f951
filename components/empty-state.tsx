'use client';

/** Shown instead of the chat when no model is configured: the server's own instructions, verbatim. */
export function EmptyState({ help, onOpenSettings }: { help: string | undefined; onOpenSettings: () => void }) {
  return (
    <div className="flex h-full items-start justify-center overflow-y-auto px-6 py-12">
      <div className="w-full max-w-4xl space-y-4">
        <div>
          <h1 className="text-lg font-semibold">No model is configured</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Clamp needs a model before it can chat. This is how to configure one:</p>
        </div>
        <pre tabIndex={0} aria-label="How to configure a model" className="overflow-x-auto whitespace-pre-wrap break-words rounded-md border border-zinc-200 bg-white p-4 font-mono text-[12px] leading-relaxed text-zinc-800 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-200">
          {help ?? 'Set CLAMP_MODEL=provider:model (for example anthropic:claude-sonnet-4-5) and the provider’s API key, then restart Clamp.'}
        </pre>
        <button
          type="button"
          onClick={onOpenSettings}
          className="rounded-md bg-sky-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 focus-visible:ring-offset-2"
        >
          Open settings
        </button>
      </div>
    </div>
  );
}
