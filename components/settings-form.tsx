'use client';

import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { ModelCheck, ModelCheckRequest, ModelSettings, PermissionMode, SandboxSettings, SecretName, SettingsUpdate, SettingsView } from '@/lib/contract/protocol';
import { PERMISSION_MODES } from '@/lib/contract/types';
import { useCheckModel, useSaveSettings } from './api';
import { MODE_HELP } from './header';
import { SandboxLists } from './sandbox-lists';

type Provider = NonNullable<ModelSettings['provider']>;
const PROVIDERS: Provider[] = ['anthropic', 'openai', 'openai-compatible', 'ollama', 'scripted'];
const SECRET: Partial<Record<Provider, SecretName>> = { anthropic: 'anthropic', openai: 'openai', 'openai-compatible': 'openai-compatible' };
const KEY_ENV: Record<SecretName, string> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY', 'openai-compatible': 'CLAMP_API_KEY' };

/** What each provider's fields mean: its own example model, and a base URL only where it uses one. */
const HINTS: Record<Provider | '', { modelLabel: string; model: string; modelHelp?: string; baseUrl?: string; baseHelp?: string }> = {
  '': { modelLabel: 'Model', model: 'from the environment' },
  anthropic: { modelLabel: 'Model', model: 'e.g. claude-sonnet-4-5' },
  openai: { modelLabel: 'Model', model: 'e.g. gpt-5' },
  'openai-compatible': {
    modelLabel: 'Model',
    model: 'as the server lists it, e.g. qwen2.5-coder-7b-instruct',
    baseUrl: 'http://127.0.0.1:1234/v1',
    baseHelp: 'LM Studio http://127.0.0.1:1234/v1 · vLLM http://127.0.0.1:8000/v1 · llama.cpp http://127.0.0.1:8080/v1',
  },
  ollama: { modelLabel: 'Model', model: 'e.g. qwen3-coder', baseUrl: 'http://127.0.0.1:11434', baseHelp: 'Ollama’s own address; left empty, http://127.0.0.1:11434.' },
  scripted: {
    modelLabel: 'Script file (a path, not a model name)',
    model: '/path/to/script.json',
    modelHelp: 'A JSON file of model turns to replay, for a demo or a test; no real model runs. The format: docs/scripted-model.md.',
  },
};

export const inputCls =
  'w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-950';
const labelCls = 'block text-xs font-medium text-zinc-600 dark:text-zinc-400';
const helpCls = 'mt-0.5 block font-normal text-zinc-500';
export const btnCls = 'rounded border px-3 py-1 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50';
export const btnPlainCls = `${btnCls} border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100`;

type Outcome =
  | { kind: 'checked'; check: ModelCheck; choose?: boolean }
  | { kind: 'refused'; check: ModelCheck }
  | { kind: 'saved'; note: string }
  | { kind: 'saved-anyway'; check: ModelCheck }
  | { kind: 'error'; message: string };

function Message({ outcome }: { outcome: Outcome }) {
  // a test that reached the provider and leaves a model to pick is not a failure: amber, not red
  const choose = outcome.kind === 'checked' && !!outcome.choose;
  const bad = !choose && (outcome.kind === 'error' || outcome.kind === 'saved-anyway' || (outcome.kind !== 'saved' && !outcome.check.ok));
  const text =
    outcome.kind === 'error'
      ? outcome.message
      : outcome.kind === 'saved'
        ? `Saved. New turns use these settings. ${outcome.note}`
        : outcome.kind === 'saved-anyway'
          ? `Saved anyway, as asked; new turns will fail until this is fixed: ${outcome.check.message}`
          : outcome.kind === 'refused'
            ? `Not saved: ${outcome.check.message}`
            : outcome.check.message;
  return (
    <p
      role={bad ? 'alert' : 'status'}
      data-settings-message={choose ? 'choose' : outcome.kind}
      className={`text-sm ${bad ? 'text-rose-700 dark:text-rose-400' : choose ? 'text-amber-800 dark:text-amber-300' : 'text-emerald-700 dark:text-emerald-400'}`}
    >
      {text}
    </p>
  );
}

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

/**
 * The model settings (provider, model, base URL, write-only key, context window, default mode). Save
 * tests the settings first and saves only what can work (or, asked explicitly, anyway); Test connection
 * tests without saving and fills the model picker. Renders the scrolling body (with `children` below the
 * fields) and the dialog's footer, so Close and Save stay at the bottom.
 */
export function SettingsForm({ view, onClose, children }: { view: SettingsView; onClose: () => void; children?: ReactNode }) {
  const s = view.settings;
  const [provider, setProvider] = useState<Provider | ''>(s.provider ?? '');
  const [model, setModel] = useState(s.model ?? '');
  const [baseUrl, setBaseUrl] = useState(s.baseUrl ?? '');
  const [contextWindow, setContextWindow] = useState(s.contextWindow ? String(s.contextWindow) : '');
  const [defaultMode, setDefaultMode] = useState<PermissionMode>(s.defaultMode);
  const [imageInput, setImageInput] = useState<'auto' | 'yes' | 'no'>(s.imageInput ?? 'auto');
  const [key, setKey] = useState('');
  const [models, setModels] = useState<string[]>([]);
  // the listed id the last test matched the model to (or the only one listed): the picker shows it chosen
  const [pick, setPick] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const save = useSaveSettings();
  const check = useCheckModel();
  const firstField = useRef<HTMLSelectElement>(null);
  const secret = provider ? SECRET[provider] : undefined;
  const hint = HINTS[provider];
  const usesBaseUrl = provider === 'openai-compatible' || provider === 'ollama';
  const busy = save.isPending || check.isPending;

  // the cursor starts in the first field of the form, not in whatever the lists below hold
  useEffect(() => firstField.current?.focus(), []);

  const edited = () => setOutcome((o) => (o?.kind === 'checked' ? o : null));
  const modelEdited = (value: string) => {
    setModel(value);
    setPick(null);
    edited();
  };
  const request = (): ModelCheckRequest => ({ provider: provider || null, model: model.trim() || null, baseUrl: usesBaseUrl ? baseUrl.trim() || null : null, key: secret && key ? key : null });
  const runCheck = async (): Promise<ModelCheck | null> => {
    try {
      const r = await check.mutateAsync(request());
      setModels(r.models);
      setPick(r.pick);
      // Model left empty and one model listed: that one is filled in, so Save saves what was tested
      if (r.ok && r.pick && !model.trim()) setModel(r.pick);
      return r;
    } catch (err) {
      setOutcome({ kind: 'error', message: (err as Error).message });
      return null;
    }
  };
  const test = async () => {
    setOutcome(null);
    const r = await runCheck();
    // with Model empty, a server that answers with several models leaves a choice, not an error
    if (r) setOutcome({ kind: 'checked', check: r, choose: !r.ok && r.reached && r.models.length > 1 && !model.trim() });
  };
  const store = (done: Outcome, picked: string | null = null) => {
    const cw = contextWindow.trim() ? Number(contextWindow) : null;
    const body: SettingsUpdate = {
      provider: provider || null,
      model: model.trim() || picked,
      baseUrl: usesBaseUrl ? baseUrl.trim() || null : null,
      contextWindow: cw !== null && Number.isFinite(cw) && cw > 0 ? Math.floor(cw) : null,
      defaultMode,
      imageInput,
      ...(secret && key ? { keys: { [secret]: key } } : {}),
    };
    save.mutate(body, {
      onSuccess: () => {
        setKey('');
        setOutcome(done);
      },
      onError: (err) => setOutcome({ kind: 'error', message: err.message }),
    });
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setOutcome(null);
    const r = await runCheck();
    if (!r) return;
    if (r.ok) store({ kind: 'saved', note: r.message }, r.pick);
    else setOutcome({ kind: 'refused', check: r });
  };
  const removeKey = () => secret && save.mutate({ keys: { [secret]: null } });
  // the sandbox is saved as soon as it is changed (no model test needed); the next command runs under it
  const [sandbox, setSandbox] = useState<SandboxSettings>(view.sandbox);
  const saveSandbox = (patch: Partial<SandboxSettings>) => {
    setSandbox((cur) => ({ ...cur, ...patch }));
    save.mutate({ sandbox: patch }, { onError: (err) => setOutcome({ kind: 'error', message: err.message }) });
  };

  return (
    <>
      <div className="min-h-0 flex-1 space-y-5 overflow-y-auto px-5 pb-5">
        <form id="settings-form" onSubmit={(e) => void submit(e)} className="space-y-3">
          <div className="grid gap-3 sm:grid-cols-2">
            <label className={labelCls}>
              Provider
              <select
                ref={firstField}
                value={provider}
                onChange={(e) => {
                  setProvider(e.target.value as Provider | '');
                  setModels([]);
                  setPick(null);
                  setOutcome(null);
                }}
                className={`${inputCls} mt-1`}
              >
                <option value="">(first one found configured)</option>
                {PROVIDERS.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </label>
            <label className={labelCls}>
              {hint.modelLabel}
              <input
                value={model}
                onChange={(e) => modelEdited(e.target.value)}
                placeholder={hint.model}
                spellCheck={false}
                className={`${inputCls} mt-1 font-mono`}
              />
              {hint.modelHelp && <span className={helpCls}>{hint.modelHelp}</span>}
            </label>
          </div>
          {models.length > 0 && (
            <label className={labelCls}>
              Models {provider === 'ollama' ? 'Ollama' : 'the provider'} lists ({models.length})
              <select
                value={models.includes(model) ? model : pick && models.includes(pick) ? pick : ''}
                onChange={(e) => {
                  setModel(e.target.value);
                  setPick(e.target.value || null);
                  setOutcome(null);
                }}
                className={`${inputCls} mt-1 font-mono`}
              >
                <option value="">pick one…</option>
                {models.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </label>
          )}
          {usesBaseUrl && (
            <label className={labelCls}>
              Base URL
              <input
                value={baseUrl}
                onChange={(e) => {
                  setBaseUrl(e.target.value);
                  edited();
                }}
                placeholder={hint.baseUrl}
                spellCheck={false}
                className={`${inputCls} mt-1 font-mono`}
              />
              <span className={helpCls}>{hint.baseHelp}</span>
            </label>
          )}
          {secret && (
            <div>
              <label className={labelCls}>
                API key{provider === 'openai-compatible' ? ' (only if your server asks for one)' : ''}
                <input
                  type="password"
                  autoComplete="off"
                  value={key}
                  onChange={(e) => {
                    setKey(e.target.value);
                    edited();
                  }}
                  placeholder={view.keys[secret] ? 'leave empty to keep the stored key' : 'paste the key'}
                  className={`${inputCls} mt-1 font-mono`}
                />
                <span className={helpCls}>
                  Saved to <span className="font-mono">{view.secretsFile}</span> (mode 0600, readable by you only), never to the database; write-only, it is not shown again.{' '}
                  {view.keys[secret] ? 'A key is stored there.' : 'No key is stored there.'}
                  {view.envKeys[secret] ? ` ${KEY_ENV[secret]} is also set where Clamp was started; the stored key wins.` : ''}
                </span>
              </label>
              {view.keys[secret] && (
                <button type="button" onClick={removeKey} className="mt-1 text-xs text-rose-700 underline dark:text-rose-400">
                  Remove the stored key
                </button>
              )}
            </div>
          )}
          <div className="flex items-center gap-2">
            <button type="button" onClick={() => void test()} disabled={busy} className={`${btnPlainCls} shrink-0 whitespace-nowrap`}>
              {check.isPending ? 'Testing…' : 'Test connection'}
            </button>
            <span className="text-xs text-zinc-500">reaches the provider and lists its models; nothing is saved</span>
          </div>
          <div className="grid gap-3 sm:grid-cols-2">
            <label className={labelCls}>
              Context window override (tokens)
              <input inputMode="numeric" value={contextWindow} onChange={(e) => setContextWindow(e.target.value.replace(/[^0-9]/g, ''))} placeholder="the model's own" className={`${inputCls} mt-1 font-mono`} />
            </label>
            <label className={labelCls}>
              Default mode for new sessions
              <select value={defaultMode} onChange={(e) => setDefaultMode(e.target.value as PermissionMode)} className={`${inputCls} mt-1`}>
                {PERMISSION_MODES.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
              <span className={helpCls}>{MODE_HELP[defaultMode]}</span>
            </label>
            <label className={labelCls}>
              The model takes images
              <select value={imageInput} onChange={(e) => setImageInput(e.target.value as 'auto' | 'yes' | 'no')} className={`${inputCls} mt-1`}>
                <option value="auto">auto</option>
                <option value="yes">yes</option>
                <option value="no">no</option>
              </select>
              <span className={helpCls}>auto: what the catalogue says, else known vision models. CLAMP_IMAGE_INPUT, when set, wins.</span>
            </label>
          </div>
        </form>
        <fieldset className="space-y-3" data-settings-sandbox>
          <legend className="text-sm font-semibold">Sandbox for commands</legend>
          <label className={labelCls}>
            Level
            <select
              value={sandbox.level}
              onChange={(e) => saveSandbox({ level: e.target.value as SandboxSettings['level'] })}
              disabled={view.sandboxEnv.level !== undefined}
              aria-label="Sandbox level"
              className={`${inputCls} mt-1`}
            >
              {SANDBOX_LEVELS.map(([v, label]) => (
                <option key={v} value={v}>
                  {label}
                </option>
              ))}
            </select>
            <span className={helpCls}>
              {view.sandboxEnv.level !== undefined ? `Set by CLAMP_SANDBOX=${view.sandboxEnv.level}, which wins over this setting.` : SANDBOX_HELP[sandbox.level]}
            </span>
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={view.sandboxEnv.network ?? sandbox.network}
              onChange={(e) => saveSandbox({ network: e.target.checked })}
              disabled={view.sandboxEnv.network !== undefined}
              aria-label="Allow network in the sandbox"
            />
            Commands share this machine&apos;s whole network (not only the allowed hosts, through the proxy)
            {view.sandboxEnv.network !== undefined && <span className="text-xs text-zinc-500">(set by CLAMP_SANDBOX_NETWORK)</span>}
          </label>
          <SandboxLists sandbox={sandbox} env={view.sandboxEnv} onSave={saveSandbox} inputClassName={inputCls} />
        </fieldset>
        {children}
      </div>
      <footer className="space-y-2 border-t border-zinc-200 px-5 py-3 dark:border-zinc-800">
        {busy ? (
          <p role="status" className="text-sm text-zinc-500">
            {check.isPending ? 'Testing the connection…' : 'Saving…'}
          </p>
        ) : (
          outcome && <Message outcome={outcome} />
        )}
        <div className="flex justify-end gap-2">
          <button type="button" onClick={onClose} className={btnPlainCls}>
            Close
          </button>
          {outcome?.kind === 'refused' && (
            <button type="button" onClick={() => store({ kind: 'saved-anyway', check: outcome.check })} disabled={busy} className={`${btnCls} border-rose-300 bg-white text-rose-700 hover:bg-rose-50 dark:border-rose-900 dark:bg-zinc-900 dark:text-rose-400`}>
              Save anyway
            </button>
          )}
          <button type="submit" form="settings-form" disabled={busy} className={`${btnCls} border-sky-700 bg-sky-600 text-white hover:bg-sky-700`}>
            Save
          </button>
        </div>
      </footer>
    </>
  );
}
