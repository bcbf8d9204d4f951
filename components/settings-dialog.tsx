'use client';

import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { ModelSettings, PermissionMode, SecretName, SettingsUpdate, SettingsView } from '@/lib/contract/protocol';
import { PERMISSION_MODES } from '@/lib/contract/types';
import { useDeleteRule, useRules, useSaveSettings, useSettings } from './api';
import { MemoriesList } from './memories-list';
import { MODE_HELP } from './header';

type Provider = NonNullable<ModelSettings['provider']>;
const PROVIDERS: Provider[] = ['anthropic', 'openai', 'openai-compatible', 'ollama', 'scripted'];
const SECRET: Partial<Record<Provider, SecretName>> = { anthropic: 'anthropic', openai: 'openai', 'openai-compatible': 'openai-compatible' };

const input =
  'w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-950';
const labelCls = 'block text-xs font-medium text-zinc-600 dark:text-zinc-400';
const btn = 'rounded border px-3 py-1 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50';

function SettingsForm({ view, onClose }: { view: SettingsView; onClose: () => void }) {
  const s = view.settings;
  const [provider, setProvider] = useState<Provider | ''>(s.provider ?? '');
  const [model, setModel] = useState(s.model ?? '');
  const [baseUrl, setBaseUrl] = useState(s.baseUrl ?? '');
  const [contextWindow, setContextWindow] = useState(s.contextWindow ? String(s.contextWindow) : '');
  const [defaultMode, setDefaultMode] = useState<PermissionMode>(s.defaultMode);
  const [key, setKey] = useState('');
  const [saved, setSaved] = useState(false);
  const save = useSaveSettings();
  const secret = provider ? SECRET[provider] : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const cw = contextWindow.trim() ? Number(contextWindow) : null;
    const body: SettingsUpdate = {
      provider: provider || null,
      model: model.trim() || null,
      baseUrl: baseUrl.trim() || null,
      contextWindow: cw !== null && Number.isFinite(cw) && cw > 0 ? Math.floor(cw) : null,
      defaultMode,
      ...(secret && key ? { keys: { [secret]: key } } : {}),
    };
    setSaved(false);
    save.mutate(body, {
      onSuccess: () => {
        setKey('');
        setSaved(true);
      },
    });
  };
  const removeKey = () => secret && save.mutate({ keys: { [secret]: null } });

  return (
    <form onSubmit={submit} className="space-y-3">
      <div className="grid grid-cols-2 gap-3">
        <label className={labelCls}>
          Provider
          <select value={provider} onChange={(e) => setProvider(e.target.value as Provider | '')} className={`${input} mt-1`}>
            <option value="">(first one found configured)</option>
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label className={labelCls}>
          Model
          <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="e.g. claude-sonnet-4-5" className={`${input} mt-1 font-mono`} />
        </label>
      </div>
      <label className={labelCls}>
        Base URL {provider === 'openai-compatible' || provider === 'ollama' ? '' : '(openai-compatible and ollama only)'}
        <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="http://127.0.0.1:1234/v1" className={`${input} mt-1 font-mono`} />
      </label>
      {secret && (
        <div>
          <label className={labelCls}>
            API key for {secret}{' '}
            <span className="font-normal">
              ({view.keys[secret] ? 'stored' : 'not stored'}
              {view.envKeys[secret] ? '; also set in the environment' : ''}) — write-only: it is never shown again
            </span>
            <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} placeholder={view.keys[secret] ? 'leave empty to keep the stored key' : 'paste the key'} className={`${input} mt-1 font-mono`} />
          </label>
          {view.keys[secret] && (
            <button type="button" onClick={removeKey} className="mt-1 text-xs text-rose-700 underline dark:text-rose-400">
              Remove the stored key
            </button>
          )}
        </div>
      )}
      <div className="grid grid-cols-2 gap-3">
        <label className={labelCls}>
          Context window override (tokens)
          <input inputMode="numeric" value={contextWindow} onChange={(e) => setContextWindow(e.target.value.replace(/[^0-9]/g, ''))} placeholder="the model's own" className={`${input} mt-1 font-mono`} />
        </label>
        <label className={labelCls}>
          Default mode for new sessions
          <select value={defaultMode} onChange={(e) => setDefaultMode(e.target.value as PermissionMode)} className={`${input} mt-1`}>
            {PERMISSION_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
          <span className="mt-0.5 block font-normal text-zinc-500">{MODE_HELP[defaultMode]}</span>
        </label>
      </div>
      {save.error && (
        <p role="alert" className="text-sm text-rose-700 dark:text-rose-400">
          {save.error.message}
        </p>
      )}
      {saved && !save.error && <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">Saved. New turns use these settings.</p>}
      <div className="flex justify-end gap-2">
        <button type="button" onClick={onClose} className={`${btn} border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100`}>
          Close
        </button>
        <button type="submit" disabled={save.isPending} className={`${btn} border-sky-700 bg-sky-600 text-white hover:bg-sky-700`}>
          Save
        </button>
      </div>
    </form>
  );
}

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

/** Model settings (provider, model, base URL, write-only key, context window, default mode), the saved rules and the memories. */
export function SettingsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const settings = useSettings(open);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby="settings-h"
      className="m-auto w-[36rem] max-w-[95vw] rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-900/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
    >
      {open && (
        <div className="space-y-5 p-5">
          <h2 id="settings-h" className="text-base font-semibold">
            Settings
          </h2>
          {settings.isLoading && <p className="text-sm text-zinc-500">Loading…</p>}
          {settings.error && <p className="text-sm text-rose-700">{settings.error.message}</p>}
          {settings.data && <SettingsForm view={settings.data} onClose={onClose} />}
          <RulesList />
          <MemoriesList />
        </div>
      )}
    </dialog>
  );
}
