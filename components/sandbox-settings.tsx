'use client';

import type { SandboxSettings, SettingsView } from '@/lib/contract/protocol';
import { SandboxLists } from './sandbox-lists';
import { helpCls, inputCls, labelCls } from './settings-styles';

const SANDBOX_LEVELS: [SandboxSettings['level'], string][] = [
  ['by-mode', 'By mode (default)'],
  ['read-only', 'read-only'],
  ['workspace-write', 'workspace-write'],
  ['off', 'off (no sandbox)'],
];
const SANDBOX_HELP: Record<SandboxSettings['level'], string> = {
  'by-mode': 'Plan and debug run commands read-only; the other modes may write the workspace only.',
  'read-only': 'Commands may read (your secrets stay hidden) but write nothing outside a private /tmp.',
  'workspace-write': 'Commands may write the workspace only; plan and debug stay read-only.',
  off: 'Commands run with your full access: files, secrets, network. The judge is the only defence.',
};

/** The sandbox for commands: its level, the whole network or not, and its lists; what the environment sets wins and is shown disabled. Saved as soon as it changes. */
export function SandboxFieldset({ view, sandbox, onSave }: { view: SettingsView; sandbox: SandboxSettings; onSave: (patch: Partial<SandboxSettings>) => void }) {
  const env = view.sandboxEnv;
  return (
    <fieldset className="space-y-3" data-settings-sandbox>
      <legend className="text-sm font-semibold">Sandbox for commands</legend>
      <label className={labelCls}>
        Level
        <select value={sandbox.level} onChange={(e) => onSave({ level: e.target.value as SandboxSettings['level'] })} disabled={env.level !== undefined} aria-label="Sandbox level" className={`${inputCls} mt-1`}>
          {SANDBOX_LEVELS.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
        <span className={helpCls}>{env.level !== undefined ? `Set by CLAMP_SANDBOX=${env.level}, which wins over this setting.` : SANDBOX_HELP[sandbox.level]}</span>
      </label>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={env.network ?? sandbox.network} onChange={(e) => onSave({ network: e.target.checked })} disabled={env.network !== undefined} aria-label="Allow network in the sandbox" />
        Commands share this machine&apos;s whole network (not only the allowed hosts, through the proxy)
        {env.network !== undefined && <span className="text-xs text-zinc-500">(set by CLAMP_SANDBOX_NETWORK)</span>}
      </label>
      <SandboxLists sandbox={sandbox} env={env} onSave={onSave} inputClassName={inputCls} />
    </fieldset>
  );
}
