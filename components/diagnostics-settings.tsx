'use client';

import { useState } from 'react';
import type { LanguageServerView } from '@/lib/contract/diagnostics';
import { useDiagnosticsSettings } from './use-diagnostics-settings';

const STATE_TEXT: Record<LanguageServerView['state'], string> = {
  running: 'running',
  starting: 'starting',
  idle: 'not started',
  failed: 'failed',
  missing: 'not installed',
  'needs-sandbox': 'needs the sandbox',
};
const STATE_CLS: Record<LanguageServerView['state'], string> = {
  running: 'text-emerald-700 dark:text-emerald-400',
  starting: 'text-sky-700 dark:text-sky-400',
  idle: 'text-zinc-500',
  failed: 'text-rose-700 dark:text-rose-400',
  missing: 'text-amber-700 dark:text-amber-400',
  'needs-sandbox': 'text-amber-700 dark:text-amber-400',
};

/** One language server: its name, the files it checks, how it runs, and how it stands. */
function ServerRow({ s }: { s: LanguageServerView }) {
  return (
    <li className="space-y-0.5 px-2 py-1" data-language-server={s.name} data-state={s.state}>
      <div className="flex items-center gap-2">
        <span className="font-mono font-medium">{s.name}</span>
        <span className="min-w-0 flex-1 truncate font-mono text-zinc-500" title={s.patterns.join(' ')}>
          {s.patterns.join(' ')}
        </span>
        {s.sandboxed && <span className="text-zinc-500">sandboxed</span>}
        {s.typescript && <span className="text-zinc-500">{s.typescript === 'workspace' ? "workspace's TypeScript" : "Clamp's TypeScript"}</span>}
        <span className={STATE_CLS[s.state]}>{STATE_TEXT[s.state]}</span>
      </div>
      <div className="truncate font-mono text-zinc-500" title={s.command}>
        {s.command}
      </div>
      {s.detail && <div className="text-zinc-600 dark:text-zinc-400">{s.detail}</div>}
    </li>
  );
}

/** Diagnostics after edits: the on/off switch (saved at once) and every language server with how it stands. */
export function DiagnosticsSettings() {
  const { view, save } = useDiagnosticsSettings();
  // the switch shows the person's choice at once; the server's answer replaces it
  const [wanted, setWanted] = useState<boolean | undefined>(undefined);
  const v = view.data;
  const envDecides = v?.env !== undefined && v.envProblem === undefined;
  return (
    <section aria-labelledby="diagnostics-h" className="space-y-2" data-settings-diagnostics>
      <h3 id="diagnostics-h" className="text-sm font-semibold">
        Diagnostics after edits
      </h3>
      {view.isLoading && <p className="text-xs text-zinc-500">Loading…</p>}
      {view.error && <p className="text-xs text-rose-700">{view.error.message}</p>}
      {v && (
        <>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={wanted ?? v.enabled}
              disabled={envDecides || save.isPending}
              onChange={(e) => {
                setWanted(e.target.checked);
                save.mutate({ enabled: e.target.checked }, { onSettled: () => setWanted(undefined) });
              }}
              aria-label="Check edited files with language servers"
            />
            Check each edited file with its language server and tell the model about new errors
          </label>
          {envDecides && <p className="text-xs text-zinc-500">Set by CLAMP_DIAGNOSTICS={v.env}, which wins over this setting.</p>}
          {v.envProblem && <p className="text-xs text-amber-700 dark:text-amber-400">{v.envProblem}</p>}
          {save.error && <p className="text-xs text-rose-700">{save.error.message}</p>}
          <ul className="divide-y divide-zinc-100 rounded border border-zinc-200 text-xs dark:divide-zinc-800 dark:border-zinc-800">
            {v.servers.map((s) => (
              <ServerRow key={s.name} s={s} />
            ))}
          </ul>
          {v.configProblem && <p className="text-xs text-rose-700 dark:text-rose-400">{v.configProblem}</p>}
          <p className="text-xs text-zinc-500">
            Other languages (pyright, gopls, rust-analyzer …): add them to <span className="font-mono">{v.configPath}</span>; see the README, “Diagnostics after edits”.
          </p>
        </>
      )}
    </section>
  );
}
