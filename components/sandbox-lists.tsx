'use client';

import { useState } from 'react';
import type { SandboxSettings, SettingsView } from '@/lib/contract/protocol';
import { parseHostPattern } from '@/lib/contract/hosts';
import { useStatus } from './api';

type ListKey = 'passEnv' | 'hide' | 'show' | 'allowHosts';

const LISTS: { key: ListKey; label: string; help: string; env: string; placeholder: string; valid: RegExp | ((entry: string) => boolean); invalid: string }[] = [
  {
    key: 'passEnv',
    label: 'Variables to pass',
    help: 'Commands get only what builds need (PATH, HOME, the locale, toolchain and proxy variables …): no key, token or password. Name a variable here to pass it as it is.',
    env: 'CLAMP_SANDBOX_ENV',
    placeholder: 'MY_BUILD_FLAG',
    valid: /^[A-Za-z_][A-Za-z0-9_]*$/,
    invalid: 'is not a variable name',
  },
  {
    key: 'hide',
    label: 'More paths to hide',
    help: 'Secrets Clamp does not know of (a folder outside HOME, a token file). Absolute, or ~/ for HOME.',
    env: 'CLAMP_SANDBOX_HIDE',
    placeholder: '~/work/.secrets',
    valid: /^(\/|~\/)/,
    invalid: 'is not an absolute path or ~/…',
  },
  {
    key: 'show',
    label: 'More of HOME to show (read-only)',
    help: 'HOME is hidden except what toolchains read (their folders, the folders on PATH and in toolchain variables, git\'s config). Add a folder a build needs.',
    env: 'CLAMP_SANDBOX_SHOW',
    placeholder: '~/sdk',
    valid: /^(\/|~\/)/,
    invalid: 'is not an absolute path or ~/…',
  },
  {
    key: 'allowHosts',
    label: 'Hosts commands may reach',
    help: 'Commands reach the network only through Clamp\'s proxy, and it connects only to these (a package registry, a Git host …), never to this machine. A host name, *.name for every name below it, or an IP address; :port for one port. The model can also ask for a host for one session; you approve it.',
    env: 'CLAMP_SANDBOX_ALLOW_HOSTS',
    placeholder: 'packages.example.org',
    valid: (entry) => !('error' in parseHostPattern(entry)),
    invalid: 'is not a host name, *.name, or an IP address (with :port)',
  },
];

const lines = (text: string) => [...new Set(text.split('\n').map((l) => l.trim()).filter(Boolean))];

/** The sandbox's three lists on the settings page: one entry a line, saved when the field loses focus. */
export function SandboxLists({
  sandbox,
  env,
  onSave,
  inputClassName,
}: {
  sandbox: SandboxSettings;
  env: SettingsView['sandboxEnv'];
  onSave: (patch: Partial<SandboxSettings>) => void;
  inputClassName: string;
}) {
  const [text, setText] = useState<Record<ListKey, string>>({
    passEnv: (sandbox.passEnv ?? []).join('\n'),
    hide: (sandbox.hide ?? []).join('\n'),
    show: (sandbox.show ?? []).join('\n'),
    allowHosts: (sandbox.allowHosts ?? []).join('\n'),
  });
  const [error, setError] = useState<Partial<Record<ListKey, string>>>({});
  const net = useStatus().data?.sandbox.net;
  const save = (key: ListKey, valid: RegExp | ((entry: string) => boolean), invalid: string) => {
    const entries = lines(text[key]);
    const bad = entries.find((e) => !(typeof valid === 'function' ? valid(e) : valid.test(e)));
    setError((cur) => ({ ...cur, [key]: bad ? `"${bad}" ${invalid}; not saved.` : undefined }));
    if (!bad && entries.join('\n') !== (sandbox[key] ?? []).join('\n')) onSave({ [key]: entries });
  };
  return (
    <>
      {LISTS.map((l) => (
        <label key={l.key} className="block text-xs font-medium text-zinc-600 dark:text-zinc-400" data-sandbox-list={l.key}>
          {l.label}
          <textarea
            value={text[l.key]}
            rows={2}
            placeholder={l.placeholder}
            aria-label={l.label}
            onChange={(e) => setText((cur) => ({ ...cur, [l.key]: e.target.value }))}
            onBlur={() => save(l.key, l.valid, l.invalid)}
            className={`${inputClassName} mt-1 font-mono`}
          />
          <span className="mt-0.5 block font-normal text-zinc-500">
            {l.help} One a line.{env[l.key]?.length ? ` Also from ${l.env}: ${env[l.key]!.join(', ')}.` : ''}
          </span>
          {error[l.key] && (
            <span role="alert" className="mt-0.5 block font-normal text-rose-700 dark:text-rose-400">
              {error[l.key]}
            </span>
          )}
          {l.key === 'allowHosts' && net && !net.available && (
            <span role="status" data-sandbox-net-problem className="mt-0.5 block font-normal text-amber-800 dark:text-amber-300">
              Not available here: {net.problem}.
            </span>
          )}
        </label>
      ))}
    </>
  );
}
