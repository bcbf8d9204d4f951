'use client';

interface Way {
  setting: string;
  what: string;
}

/**
 * The server's help as a lead sentence and a list of ways: its lines of the form
 * "  SETTING   (what it does)" become list items, so nothing depends on monospace columns.
 * The page's heading already says no model is configured, so the help's own first sentence saying so is dropped.
 */
export function parseHelp(help: string): { lead: string; ways: Way[] } {
  const lines = help.split('\n');
  const ways: Way[] = [];
  const lead: string[] = [];
  for (const line of lines) {
    const m = /^\s+(\S.*?)\s+\((.+)\)\s*$/.exec(line);
    if (m) ways.push({ setting: m[1].trim(), what: m[2] });
    else if (line.trim()) lead.push(line.trim());
  }
  return { lead: lead.join(' ').replace(/^No model is configured\.\s*/, ''), ways };
}

/** Text with `code` spans shown as code. */
function Inline({ text }: { text: string }) {
  return (
    <>
      {text.split('`').map((part, i) =>
        i % 2 ? (
          <code key={i} className="font-mono text-[12.5px]">
            {part}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}

const FALLBACK = 'Set CLAMP_MODEL=provider:model (for example anthropic:claude-sonnet-4-5) and the provider’s API key, then restart Clamp.';

/** Shown instead of the chat when no model is configured: the server's own instructions, as a list. */
export function EmptyState({ help, onOpenSettings }: { help: string | undefined; onOpenSettings: () => void }) {
  const { lead, ways } = parseHelp(help ?? FALLBACK);
  return (
    <div className="flex h-full items-start justify-center overflow-y-auto px-6 py-12">
      <div className="w-full max-w-3xl space-y-4">
        <h1 className="text-lg font-semibold">No model is configured</h1>
        <p className="text-sm text-zinc-700 dark:text-zinc-300"><Inline text={lead || 'Clamp needs a model before it can chat.'} /></p>
        {ways.length > 0 && (
          <ul aria-label="How to configure a model" className="divide-y divide-zinc-100 rounded-md border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
            {ways.map((w) => (
              <li key={w.setting} className="px-4 py-2.5 text-sm">
                <code className="break-all font-mono text-[12.5px] text-zinc-900 dark:text-zinc-100">{w.setting}</code>
                <span className="mt-0.5 block text-zinc-600 dark:text-zinc-400">{w.what}</span>
              </li>
            ))}
          </ul>
        )}
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          No model at hand? <code className="font-mono text-[12.5px]">npm run demo</code> starts Clamp on a sample project with a scripted model.
        </p>
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
