'use client';

import { useEffect, useRef, type ReactNode } from 'react';
import type { PermissionMode, SettingsView } from '@/lib/contract/protocol';
import { PERMISSION_MODES } from '@/lib/contract/types';
import { MODE_HELP } from './header';
import { ApiKeyField, BaseUrlField, ListedModels, ProviderAndModel } from './model-fields';
import { SandboxFieldset } from './sandbox-settings';
import { btnCls, btnPlainCls, helpCls, inputCls, labelCls } from './settings-styles';
import { useModelForm, type ModelForm, type Outcome } from './use-model-form';

export { btnPlainCls, inputCls };

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

/** The settings that need no test: the window override, the default mode, and whether the model takes images. */
function OtherModelFields({ form }: { form: ModelForm }) {
  const d = form.draft;
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <label className={labelCls}>
        Context window override (tokens)
        <input inputMode="numeric" value={d.contextWindow} onChange={(e) => form.set({ contextWindow: e.target.value.replace(/[^0-9]/g, '') })} placeholder="the model's own" className={`${inputCls} mt-1 font-mono`} />
      </label>
      <label className={labelCls}>
        Default mode for new sessions
        <select value={d.defaultMode} onChange={(e) => form.set({ defaultMode: e.target.value as PermissionMode })} className={`${inputCls} mt-1`}>
          {PERMISSION_MODES.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <span className={helpCls}>{MODE_HELP[d.defaultMode]}</span>
      </label>
      <label className={labelCls}>
        The model takes images
        <select value={d.imageInput} onChange={(e) => form.set({ imageInput: e.target.value as 'auto' | 'yes' | 'no' })} className={`${inputCls} mt-1`}>
          <option value="auto">auto</option>
          <option value="yes">yes</option>
          <option value="no">no</option>
        </select>
        <span className={helpCls}>auto: what the catalogue says, else known vision models. CLAMP_IMAGE_INPUT, when set, wins.</span>
      </label>
    </div>
  );
}

/** The dialog's foot: what was last said (or that a test or save runs), Close, Save anyway after a refusal, and Save. */
function SettingsFooter({ form, onClose }: { form: ModelForm; onClose: () => void }) {
  const outcome = form.outcome;
  return (
    <footer className="space-y-2 border-t border-zinc-200 px-5 py-3 dark:border-zinc-800">
      {form.busy ? (
        <p role="status" className="text-sm text-zinc-500">
          {form.check.isPending ? 'Testing the connection…' : 'Saving…'}
        </p>
      ) : (
        outcome && <Message outcome={outcome} />
      )}
      <div className="flex justify-end gap-2">
        <button type="button" onClick={onClose} className={btnPlainCls}>
          Close
        </button>
        {outcome?.kind === 'refused' && (
          <button type="button" onClick={() => form.saveAnyway(outcome.check)} disabled={form.busy} className={`${btnCls} border-rose-300 bg-white text-rose-700 hover:bg-rose-50 dark:border-rose-900 dark:bg-zinc-900 dark:text-rose-400`}>
            Save anyway
          </button>
        )}
        <button type="submit" form="settings-form" disabled={form.busy} className={`${btnCls} border-sky-700 bg-sky-600 text-white hover:bg-sky-700`}>
          Save
        </button>
      </div>
    </footer>
  );
}

/**
 * The model settings (provider, model, base URL, write-only key, context window, default mode): the
 * provider's fields come from its row of the provider table. Save tests the settings first and saves
 * only what can work (or, asked explicitly, anyway); Test connection tests without saving and fills the
 * model picker. Renders the scrolling body (with `children` below the fields) and the dialog's footer,
 * so Close and Save stay at the bottom.
 */
export function SettingsForm({ view, onClose, children }: { view: SettingsView; onClose: () => void; children?: ReactNode }) {
  const form = useModelForm(view);
  const firstField = useRef<HTMLSelectElement>(null);
  // the cursor starts in the first field of the form, not in whatever the lists below hold
  useEffect(() => firstField.current?.focus(), []);
  return (
    <>
      <div className="min-h-0 flex-1 space-y-5 overflow-y-auto px-5 pb-5">
        <form id="settings-form" onSubmit={(e) => void form.submit(e)} className="space-y-3">
          <ProviderAndModel form={form} firstField={firstField} />
          <ListedModels form={form} />
          <BaseUrlField form={form} />
          <ApiKeyField form={form} view={view} />
          <div className="flex items-center gap-2">
            <button type="button" onClick={() => void form.test()} disabled={form.busy} className={`${btnPlainCls} shrink-0 whitespace-nowrap`}>
              {form.check.isPending ? 'Testing…' : 'Test connection'}
            </button>
            <span className="text-xs text-zinc-500">reaches the provider and lists its models; nothing is saved</span>
          </div>
          <OtherModelFields form={form} />
        </form>
        <SandboxFieldset view={view} sandbox={form.sandbox} onSave={form.saveSandbox} />
        {children}
      </div>
      <SettingsFooter form={form} onClose={onClose} />
    </>
  );
}
