'use client';

import { useEffect, useRef } from 'react';
import { useDeleteRule, useRules, useSettings } from './api';
import { MemoriesList } from './memories-list';
import { McpServers } from './mcp-servers';
import { HooksSettings } from './hooks-settings';
import { FileRulesSection } from './file-rules';
import { DiagnosticsSettings } from './diagnostics-settings';
import { WorktreeSettings } from './worktree-settings';
import { StorageSettings } from './storage-settings';
import { LimitSettingsSection } from './limit-settings';
import { btnPlainCls, SettingsForm } from './settings-form';

function RulesList() {
  const rules = useRules(true);
  const del = useDeleteRule();
  return (
    <section aria-labelledby="rules-h" className="space-y-2">
      <h3 id="rules-h" className="text-sm font-semibold">
        Saved rules
      </h3>
      {rules.isLoading && <p className="text-xs text-zinc-500">Loading…</p>}
      {rules.error && <p className="text-xs text-rose-700">{rules.error.message}</p>}
      {rules.data?.length === 0 && <p className="text-xs text-zinc-500">No saved rules. “Always” in the approval bar saves one.</p>}
      {!!rules.data?.length && (
        <ul className="max-h-56 divide-y divide-zinc-100 overflow-y-auto rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {rules.data.map((r) => (
            <li key={r.id} className="flex items-center gap-2 px-2 py-1 text-xs">
              <span className={`rounded px-1 font-medium ${r.action === 'allow' ? 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300' : r.action === 'deny' ? 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-300' : 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300'}`}>{r.action}</span>
              <span className="font-mono">{r.tool}</span>
              <span className="min-w-0 flex-1 truncate font-mono text-zinc-600 dark:text-zinc-400" title={r.pattern}>
                {r.pattern}
              </span>
              <button type="button" onClick={() => del.mutate(r.id)} disabled={del.isPending} aria-label={`Remove rule ${r.tool} ${r.pattern}`} className="rounded px-1.5 text-zinc-500 hover:bg-rose-50 hover:text-rose-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:hover:bg-rose-950">
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * Model settings (provider, model, base URL, write-only key, context window, default mode), the saved
 * rules and the memories; the body scrolls, Close and Save stay at the bottom.
 */
export function SettingsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const settings = useSettings(open);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  const lists = (
    <>
      <McpServers />
      <HooksSettings />
      <RulesList />
      <FileRulesSection />
      <MemoriesList />
      <DiagnosticsSettings />
      <WorktreeSettings />
      <StorageSettings />
      <LimitSettingsSection />
    </>
  );
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby="settings-h"
      className="m-auto w-[36rem] max-w-[95vw] rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-900/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
    >
      {open && (
        <div className="flex max-h-[90vh] flex-col">
          <h2 id="settings-h" className="px-5 pt-5 pb-3 text-base font-semibold">
            Settings
          </h2>
          {settings.data ? (
            <SettingsForm view={settings.data} onClose={onClose}>
              {lists}
            </SettingsForm>
          ) : (
            <>
              <div className="min-h-0 flex-1 space-y-5 overflow-y-auto px-5 pb-5">
                {settings.isLoading && <p className="text-sm text-zinc-500">Loading…</p>}
                {settings.error && <p className="text-sm text-rose-700">{settings.error.message}</p>}
              </div>
              <footer className="flex justify-end border-t border-zinc-200 px-5 py-3 dark:border-zinc-800">
                <button type="button" onClick={onClose} className={btnPlainCls}>
                  Close
                </button>
              </footer>
            </>
          )}
        </div>
      )}
    </dialog>
  );
}
