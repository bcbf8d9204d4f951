'use client';

import { useState } from 'react';
import type { HookView, HooksView } from '@/lib/contract/hooks-rest';
import { btnPlainCls, inputCls } from './settings-styles';
import { useHooks, useHooksMutation } from './use-hooks';

const EXAMPLE = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/check-secrets.sh", "timeout": 10 }] }
    ]
  }
}`;

/** One hook in a list: event, matcher, name and command; a workspace's with its approval. */
function HookRow({ h, onApprove, busy }: { h: HookView; onApprove?: (approved: boolean) => void; busy?: boolean }) {
  return (
    <li className="space-y-0.5 px-2 py-1 text-xs" data-hook={h.name} data-approved={h.approved === undefined ? undefined : String(h.approved)}>
      <div className="flex items-center gap-2">
        <span className="font-medium">{h.event}</span>
        {h.matcher && <span className="font-mono text-zinc-500">{h.matcher}</span>}
        <span className="font-mono">{h.name}</span>
        <span className="min-w-0 flex-1 truncate text-zinc-500" title={h.file}>
          {h.file}
        </span>
        {onApprove && (
          <>
            <span className={h.approved ? 'text-emerald-700 dark:text-emerald-400' : 'text-amber-700 dark:text-amber-400'}>{h.approved ? 'approved: runs in the sandbox' : 'not approved: does not run'}</span>
            <button type="button" className={btnPlainCls} disabled={busy} onClick={() => onApprove(!h.approved)}>
              {h.approved ? 'Revoke' : 'Approve'}
            </button>
          </>
        )}
      </div>
      <div className="break-all font-mono text-zinc-600 dark:text-zinc-400">{h.command}</div>
    </li>
  );
}

/** The person's hooks file as text: edited here, checked by the server before it is saved. */
function PersonFile({ v, save }: { v: HooksView; save: ReturnType<typeof useHooksMutation> }) {
  const [text, setText] = useState(v.personText);
  return (
    <form
      className="space-y-1"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ personText: text });
      }}
    >
      <label className="block text-xs text-zinc-600 dark:text-zinc-400">
        Your hooks ({v.personFile}) — Claude Code&apos;s format; they run on this machine without asking
        <textarea className={`${inputCls} mt-1 font-mono text-xs`} rows={8} spellCheck={false} aria-label="Your hooks (JSON)" placeholder={EXAMPLE} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      {save.error && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
          {save.error.message}
        </p>
      )}
      {save.isSuccess && !save.error && <p className="text-xs text-emerald-700 dark:text-emerald-400">Saved. The next call uses them.</p>}
      <div className="flex justify-end">
        <button type="submit" className={btnPlainCls} disabled={save.isPending || text === v.personText}>
          Save hooks
        </button>
      </div>
    </form>
  );
}

/**
 * The hooks section of the settings page: the person's own hooks file, the switch for Claude Code's user settings,
 * the hooks that run, and the workspace's hooks, each run only once approved (by its exact definition).
 */
export function HooksSettings() {
  const hooks = useHooks();
  const change = useHooksMutation();
  const save = useHooksMutation();
  const v = hooks.data;
  return (
    <section aria-labelledby="hooks-h" className="space-y-2">
      <h3 id="hooks-h" className="text-sm font-semibold">
        Hooks
      </h3>
      <p className="text-xs text-zinc-500">Commands run at every tool call (PreToolUse, PostToolUse) and at a turn&apos;s edges (UserPromptSubmit, Stop, SessionStart, PreCompact, Notification). See the README&apos;s Hooks section.</p>
      {hooks.isLoading && <p className="text-xs text-zinc-500">Loading…</p>}
      {hooks.error && <p className="text-xs text-rose-700">{hooks.error.message}</p>}
      {v && (
        <>
          {/* a saved text starts the field afresh */}
          <PersonFile key={v.personText} v={v} save={save} />
          <label className="flex items-center gap-2 text-xs">
            <input type="checkbox" checked={v.claudeUser.on} disabled={change.isPending} onChange={(e) => change.mutate({ claudeUser: e.target.checked })} />
            Run the hooks of Claude Code&apos;s user settings ({v.claudeUser.file})
          </label>
          <label className="flex items-center gap-2 text-xs">
            <input type="checkbox" checked={v.claudeFiles.on} disabled={change.isPending} onChange={(e) => change.mutate({ claudeFiles: e.target.checked })} />
            Offer the commands and agents of your Claude Code folders ({v.claudeFiles.commands}, {v.claudeFiles.agents})
          </label>
          {v.person.length > 0 && (
            <ul aria-label="Your hooks" className="divide-y divide-zinc-100 rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
              {v.person.map((h) => (
                <HookRow key={h.hash + h.file} h={h} />
              ))}
            </ul>
          )}
          {v.workspace.length > 0 && (
            <>
              <p className="text-xs text-zinc-600 dark:text-zinc-400">This workspace&apos;s hooks (its .clamp and .claude settings): each runs only once you approve it, and then in the sandbox. A changed definition asks again.</p>
              <ul aria-label="Workspace hooks" className="divide-y divide-zinc-100 rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
                {v.workspace.map((h) => (
                  <HookRow key={h.hash + h.file} h={h} busy={change.isPending} onApprove={(approved) => change.mutate({ approve: { hash: h.hash, approved } })} />
                ))}
              </ul>
            </>
          )}
          {change.error && <p className="text-xs text-rose-700">{change.error.message}</p>}
          {v.problems.map((p) => (
            <p key={p} role="alert" className="text-xs text-rose-700 dark:text-rose-400">
              {p}
            </p>
          ))}
          {v.skippedEvents.length > 0 && <p className="text-xs text-zinc-500">Events Clamp does not run (skipped): {v.skippedEvents.join(', ')}.</p>}
        </>
      )}
    </section>
  );
}
