'use client';

import type { RefObject } from 'react';
import type { SettingsView } from '@/lib/contract/protocol';
import { PROVIDER_TABLE, type Provider, type ProviderFields } from '@/lib/contract/providers';
import type { ModelForm } from './use-model-form';
import { helpCls, inputCls, labelCls } from './settings-styles';

/** The Model field's words with no provider chosen: the environment decides. */
const UNCHOSEN: ProviderFields = { modelLabel: 'Model', modelPlaceholder: 'from the environment', listedBy: 'the provider' };

/** A select of plain string options, each its own label. */
function Options({ values }: { values: readonly string[] }) {
  return values.map((v) => (
    <option key={v} value={v}>
      {v}
    </option>
  ));
}

/** The provider (every row of the provider table) and the model, in the provider's own words. */
export function ProviderAndModel({ form, firstField }: { form: ModelForm; firstField: RefObject<HTMLSelectElement | null> }) {
  const fields: ProviderFields = form.row?.fields ?? UNCHOSEN;
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <label className={labelCls}>
        Provider
        <select ref={firstField} value={form.draft.provider} onChange={(e) => form.chooseProvider(e.target.value as Provider | '')} className={`${inputCls} mt-1`}>
          <option value="">(first one found configured)</option>
          <Options values={PROVIDER_TABLE.map((r) => r.name)} />
        </select>
      </label>
      <label className={labelCls}>
        {fields.modelLabel}
        <input
          value={form.draft.model}
          onChange={(e) => (form.edit({ model: e.target.value }), form.listed.setPick(null))}
          placeholder={fields.modelPlaceholder}
          spellCheck={false}
          className={`${inputCls} mt-1 font-mono`}
        />
        {fields.modelHelp && <span className={helpCls}>{fields.modelHelp}</span>}
      </label>
    </div>
  );
}

/** The models the last test listed, to pick from; the one it matched is shown chosen. */
export function ListedModels({ form }: { form: ModelForm }) {
  const { models, pick } = form.listed;
  const model = form.draft.model;
  if (models.length === 0) return null;
  return (
    <label className={labelCls}>
      Models {(form.row?.fields ?? UNCHOSEN).listedBy} lists ({models.length})
      <select value={models.includes(model) ? model : pick && models.includes(pick) ? pick : ''} onChange={(e) => form.pickListed(e.target.value)} className={`${inputCls} mt-1 font-mono`}>
        <option value="">pick one…</option>
        <Options values={models} />
      </select>
    </label>
  );
}

/** The server's address, for providers the person points at one. */
export function BaseUrlField({ form }: { form: ModelForm }) {
  if (!form.row?.endpoint.setting) return null;
  const hint = form.row.fields.baseUrl;
  return (
    <label className={labelCls}>
      Base URL
      <input value={form.draft.baseUrl} onChange={(e) => form.edit({ baseUrl: e.target.value })} placeholder={hint?.placeholder} spellCheck={false} className={`${inputCls} mt-1 font-mono`} />
      <span className={helpCls}>{hint?.help}</span>
    </label>
  );
}

/** The write-only API key the provider asks for, where it is stored, and whether the environment has one too. */
export function ApiKeyField({ form, view }: { form: ModelForm; view: SettingsView }) {
  const secret = form.secret;
  if (!secret) return null;
  const stored = view.keys[secret];
  return (
    <div>
      <label className={labelCls}>
        API key{form.row?.fields.keyNote ?? ''}
        <input
          type="password"
          autoComplete="off"
          value={form.draft.key}
          onChange={(e) => form.edit({ key: e.target.value })}
          placeholder={stored ? 'leave empty to keep the stored key' : 'paste the key'}
          className={`${inputCls} mt-1 font-mono`}
        />
        <span className={helpCls}>
          Saved to <span className="font-mono">{view.secretsFile}</span> (mode 0600, readable by you only), never to the database; write-only, it is not shown again.{' '}
          {stored ? 'A key is stored there.' : 'No key is stored there.'}
          {view.envKeys[secret] ? ` ${form.row?.secret?.env} is also set where Clamp was started; the stored key wins.` : ''}
        </span>
      </label>
      {stored && (
        <button type="button" onClick={form.removeKey} className="mt-1 text-xs text-rose-700 underline dark:text-rose-400">
          Remove the stored key
        </button>
      )}
    </div>
  );
}
