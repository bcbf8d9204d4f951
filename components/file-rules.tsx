'use client';

import type { FileRuleView } from '@/lib/contract/permission-rest';
import { btnPlainCls } from './settings-styles';
import { useFileRules, useFileRulesMutation } from './use-file-rules';

const BADGE: Record<FileRuleView['action'], string> = {
  allow: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  ask: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
  deny: 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-300',
};

const SOURCE: Record<FileRuleView['source'], string> = { person: 'yours', 'claude-user': 'Claude Code user settings', workspace: 'this workspace' };

/** One rule of a settings file: its action, text and file (read-only: it is changed in its file); a workspace allow with its approval. */
function FileRuleRow({ r, on, busy, approve }: { r: FileRuleView; on: boolean; busy: boolean; approve: (hash: string, approved: boolean) => void }) {
  return (
    <li className="space-y-0.5 px-2 py-1 text-xs" data-file-rule={r.text} data-state={r.state}>
      <div className="flex items-center gap-2">
        <span className={`rounded px-1 font-medium ${BADGE[r.action]}`}>{r.action}</span>
        <span className="min-w-0 flex-1 truncate font-mono" title={r.text}>
          {r.text}
        </span>
        {r.state === 'error' && <span className="text-rose-700 dark:text-rose-400">not read</span>}
        {r.state === 'active' && !on && <span className="text-zinc-500">off</span>}
        {r.hash && (
          <>
            <span className={r.state === 'active' ? 'text-emerald-700 dark:text-emerald-400' : 'text-amber-700 dark:text-amber-400'}>{r.state === 'active' ? 'approved' : 'not approved: allows nothing'}</span>
            <button type="button" className={btnPlainCls} disabled={busy} onClick={() => approve(r.hash!, r.state !== 'active')} aria-label={`${r.state === 'active' ? 'Revoke' : 'Approve'} ${r.text}`}>
              {r.state === 'active' ? 'Revoke' : 'Approve'}
            </button>
          </>
        )}
      </div>
      <div className="truncate text-zinc-500" title={r.file}>
        {r.file} ({SOURCE[r.source]})
      </div>
      {r.error && (
        <p role="alert" className="text-rose-700 dark:text-rose-400">
          {r.error}
        </p>
      )}
    </li>
  );
}

/**
 * The rules page's section for permission rules in settings files (Claude Code's permissions.allow/ask/deny): the
 * switch that makes Clamp read them, and every rule with its file. A workspace's allow rules apply only once approved.
 */
export function FileRulesSection() {
  const rules = useFileRules();
  const change = useFileRulesMutation();
  const v = rules.data;
  return (
    <section aria-labelledby="file-rules-h" className="space-y-2">
      <h3 id="file-rules-h" className="text-sm font-semibold">
        Rules from settings files
      </h3>
      {rules.isLoading && <p className="text-xs text-zinc-500">Loading…</p>}
      {rules.error && <p className="text-xs text-rose-700">{rules.error.message}</p>}
      {v && (
        <>
          <label className="flex items-center gap-2 text-xs">
            <input type="checkbox" checked={v.on} disabled={change.isPending} onChange={(e) => change.mutate({ on: e.target.checked })} />
            Read the permission rules (allow, ask, deny) of Claude Code settings files
          </label>
          <p className="text-xs text-zinc-500">Deny beats ask beats allow. A workspace&apos;s deny and ask rules apply at once; its allow rules only once you approve each. Clamp&apos;s own checks still hold. Change a rule in its file.</p>
          {v.rules.length === 0 && <p className="text-xs text-zinc-500">No permission rules in {v.files.join(', ')}.</p>}
          {v.rules.length > 0 && (
            <ul aria-label="Rules from settings files" className="max-h-72 divide-y divide-zinc-100 overflow-y-auto rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
              {v.rules.map((r, i) => (
                <FileRuleRow key={`${r.file}:${r.action}:${i}`} r={r} on={v.on} busy={change.isPending} approve={(hash, approved) => change.mutate({ approve: { hash, approved } })} />
              ))}
            </ul>
          )}
          {change.error && <p className="text-xs text-rose-700">{change.error.message}</p>}
          {v.problems.map((p) => (
            <p key={p} role="alert" className="text-xs text-rose-700 dark:text-rose-400">
              {p}
            </p>
          ))}
        </>
      )}
    </section>
  );
}
