'use client';

import { useState, type Dispatch, type FormEvent, type SetStateAction } from 'react';
import type { ModelCheck, ModelCheckRequest, ModelSettings, PermissionMode, SandboxSettings, SettingsUpdate, SettingsView } from '@/lib/contract/protocol';
import { providerRow, type Provider, type ProviderRow, type SecretName } from '@/lib/contract/providers';
import { useCheckModel, useSaveSettings } from './api';

/** What the settings dialog last said: a test's answer, a refusal to save, a save, or an error. */
export type Outcome =
  | { kind: 'checked'; check: ModelCheck; choose?: boolean }
  | { kind: 'refused'; check: ModelCheck }
  | { kind: 'saved'; note: string }
  | { kind: 'saved-anyway'; check: ModelCheck }
  | { kind: 'error'; message: string };

/** The model settings as the dialog holds them, before they are saved. */
export interface ModelDraft {
  provider: Provider | '';
  model: string;
  baseUrl: string;
  contextWindow: string;
  defaultMode: PermissionMode;
  imageInput: 'auto' | 'yes' | 'no';
  /** a key typed (write-only: never filled from the server) */
  key: string;
}

function draftOf(s: ModelSettings): ModelDraft {
  return { provider: s.provider ?? '', model: s.model ?? '', baseUrl: s.baseUrl ?? '', contextWindow: s.contextWindow ? String(s.contextWindow) : '', defaultMode: s.defaultMode, imageInput: s.imageInput ?? 'auto', key: '' };
}

/** The key the page asks for with this provider, if any. */
const secretOf = (row: ProviderRow | undefined): SecretName | undefined => (row?.secret?.onPage ? (row.secret.name as SecretName) : undefined);

/** The draft as Test connection sends it: a base URL only where the provider takes one, a key only where it asks for one. */
function checkRequest(d: ModelDraft, row: ProviderRow | undefined): ModelCheckRequest {
  const secret = secretOf(row);
  return { provider: d.provider || null, model: d.model.trim() || null, baseUrl: row?.endpoint.setting ? d.baseUrl.trim() || null : null, key: secret && d.key ? d.key : null };
}

/** The draft as Save sends it (the model a test picked when the field is empty). */
function settingsUpdate(d: ModelDraft, row: ProviderRow | undefined, picked: string | null): SettingsUpdate {
  const cw = d.contextWindow.trim() ? Number(d.contextWindow) : null;
  const secret = secretOf(row);
  return {
    provider: d.provider || null,
    model: d.model.trim() || picked,
    baseUrl: row?.endpoint.setting ? d.baseUrl.trim() || null : null,
    contextWindow: cw !== null && Number.isFinite(cw) && cw > 0 ? Math.floor(cw) : null,
    defaultMode: d.defaultMode,
    imageInput: d.imageInput,
    ...(secret && d.key ? { keys: { [secret]: d.key } } : {}),
  };
}

/** The models a test listed, and the listed id it matched the model to (or the only one listed): the picker shows it chosen. */
function useListed() {
  const [models, setModels] = useState<string[]>([]);
  const [pick, setPick] = useState<string | null>(null);
  return { models, setModels, pick, setPick };
}

/** How a change to a model field clears what no longer holds. */
function fieldEdits(set: (patch: Partial<ModelDraft>) => void, listed: ReturnType<typeof useListed>, setOutcome: Dispatch<SetStateAction<Outcome | null>>) {
  return {
    /** a field changed: a test's answer stays (it still says what was reached), anything else is cleared */
    edit: (patch: Partial<ModelDraft>) => (set(patch), setOutcome((o) => (o?.kind === 'checked' ? o : null))),
    /** another provider: its list and what was said go */
    chooseProvider: (provider: Provider | '') => (set({ provider }), listed.setModels([]), listed.setPick(null), setOutcome(null)),
    /** a model picked from the list */
    pickListed: (m: string) => (set({ model: m }), listed.setPick(m || null), setOutcome(null)),
  };
}

/**
 * The settings dialog's state and actions: the draft, the models a test listed, what was last said, and
 * Test connection / Save / Save anyway / remove the key / save the sandbox. Save tests first and saves
 * only what can work; the sandbox is saved as soon as it changes.
 */
export function useModelForm(view: SettingsView) {
  const [draft, setDraft] = useState<ModelDraft>(() => draftOf(view.settings));
  const listed = useListed();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [sandbox, setSandbox] = useState<SandboxSettings>(view.sandbox);
  const save = useSaveSettings();
  const check = useCheckModel();
  const row = providerRow(draft.provider);
  const set = (patch: Partial<ModelDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const fail = (err: Error) => setOutcome({ kind: 'error', message: err.message });

  const runCheck = async (): Promise<ModelCheck | null> => {
    try {
      const r = await check.mutateAsync(checkRequest(draft, row));
      listed.setModels(r.models);
      listed.setPick(r.pick);
      // Model left empty and one model listed: that one is filled in, so Save saves what was tested
      if (r.ok && r.pick && !draft.model.trim()) set({ model: r.pick });
      return r;
    } catch (err) {
      fail(err as Error);
      return null;
    }
  };
  const store = (done: Outcome, picked: string | null = null) =>
    save.mutate(settingsUpdate(draft, row, picked), { onSuccess: () => (set({ key: '' }), setOutcome(done)), onError: fail });
  const secret = secretOf(row);
  return {
    draft,
    row,
    secret,
    listed,
    outcome,
    sandbox,
    save,
    check,
    busy: save.isPending || check.isPending,
    set,
    ...fieldEdits(set, listed, setOutcome),
    test: async () => {
      setOutcome(null);
      const r = await runCheck();
      // with Model empty, a server that answers with several models leaves a choice, not an error
      if (r) setOutcome({ kind: 'checked', check: r, choose: !r.ok && r.reached && r.models.length > 1 && !draft.model.trim() });
    },
    submit: async (e: FormEvent) => {
      e.preventDefault();
      setOutcome(null);
      const r = await runCheck();
      if (r?.ok) store({ kind: 'saved', note: r.message }, r.pick);
      else if (r) setOutcome({ kind: 'refused', check: r });
    },
    saveAnyway: (c: ModelCheck) => store({ kind: 'saved-anyway', check: c }),
    removeKey: () => secret && save.mutate({ keys: { [secret]: null } }),
    saveSandbox: (patch: Partial<SandboxSettings>) => (setSandbox((cur) => ({ ...cur, ...patch })), save.mutate({ sandbox: patch }, { onError: fail })),
  };
}

export type ModelForm = ReturnType<typeof useModelForm>;
