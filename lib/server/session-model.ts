import { parseModelSpec, resolveModel, type ProviderName, type ResolvedModel, type UnresolvedModel } from '../agent/providers';
import { BUDGET } from '../contract/budget';
import { PROVIDER_TABLE, type ProviderRow } from '../contract/providers';
import type { ModelCapabilityAnswer, ModelChoicesAnswer, ModelChoiceGroup } from '../contract/rest';
import { openDb } from '../store/db';
import { getModelSettings } from '../store/settings';
import { getSession, getSessionModel } from '../store/sessions';
import type { ServerConfig } from './http';
import { currentModel, currentModelWithWindow, storedKeys, withWindow } from './model';
import { checkModel } from './model-check';

type Env = NodeJS.ProcessEnv;

/** The `provider:model` a resolved model is, as the picker and the session store spell it. */
export function specOf(r: { status: { provider: string | null; model: string | null } }): string | null {
  return r.status.provider && r.status.model ? `${r.status.provider}:${r.status.model}` : null;
}

/**
 * A model named `provider:model` with the saved settings' base URL and window override when they are
 * for that provider (and model), else the environment's. Never throws.
 */
export function resolveSpec(cfg: ServerConfig, spec: string, env: Env = process.env): ResolvedModel | UnresolvedModel {
  const parsed = parseModelSpec(spec);
  const saved = getModelSettings(openDb(cfg.dataDir), cfg.mode);
  const pk = storedKeys(cfg.dataDir);
  if ('error' in parsed) return resolveModel({ CLAMP_MODEL: spec }, {}, pk);
  const sameProvider = saved.provider === parsed.provider;
  return resolveModel(
    env,
    {
      provider: parsed.provider,
      model: parsed.model,
      baseUrl: sameProvider ? saved.baseUrl : null,
      contextWindow: sameProvider && saved.model === parsed.model ? saved.contextWindow : null,
      imageInput: saved.imageInput,
      defaultMode: saved.defaultMode,
    },
    pk,
  );
}

/** The model a session's next step uses: the session's own pick, else the default (currentModel). Never throws. */
export function sessionModel(cfg: ServerConfig, sessionId: string, env: Env = process.env): ResolvedModel | UnresolvedModel {
  const picked = getSession(openDb(cfg.dataDir), sessionId)?.model;
  return picked ? resolveSpec(cfg, picked, env) : currentModel(cfg, env);
}

/** The prefixes of the environment variables a model's resolution reads: CLAMP_ and each provider's (its key's, its base URL's). */
const MODEL_ENV_PREFIXES = new Set(['CLAMP', ...PROVIDER_TABLE.flatMap((r: ProviderRow) => [r.secret?.env ?? '', ...r.endpoint.env].filter(Boolean).map((v) => v.split('_')[0]))]);

/** The environment variables a model's resolution reads (provider, keys, base URLs, CLAMP_IMAGE_INPUT …). */
function modelEnv(env: Env): [string, string | undefined][] {
  return Object.entries(env)
    .filter(([k]) => k.includes('_') && MODEL_ENV_PREFIXES.has(k.split('_')[0]))
    .sort(([a], [b]) => (a < b ? -1 : 1));
}

/** sessionModel for the steps of one turn (sessionModelForSteps). */
export interface StepModels {
  /** the model for the next step: sessionModel's answer, resolved again only when `inputs()` changed */
  resolve(): ResolvedModel | UnresolvedModel;
  /** what the answer depends on now: the session's pick, the saved settings, the keys, the environment */
  inputs(): string;
  /** an answer already resolved for those inputs (the turn's own model), kept for the steps */
  seed(inputs: string, r: ResolvedModel | UnresolvedModel): void;
}

/** What a session's model depends on, for its pick as read: the pick, the saved settings, the keys, the environment. */
function modelInputs(cfg: ServerConfig, picked: string | undefined, env: Env): string {
  return JSON.stringify([picked ?? null, getModelSettings(openDb(cfg.dataDir), cfg.mode), storedKeys(cfg.dataDir), modelEnv(env)]);
}

/**
 * sessionModel for the steps of one turn: the same answer, resolved again only when what it depends
 * on changed, so a step does not build a provider client it throws away. Never throws.
 */
export function sessionModelForSteps(cfg: ServerConfig, sessionId: string, env: Env = process.env): StepModels {
  let memo: { key: string; r: ResolvedModel | UnresolvedModel } | null = null;
  const inputs = () => modelInputs(cfg, getSessionModel(openDb(cfg.dataDir), sessionId), env);
  return {
    inputs,
    seed: (key, r) => {
      memo = { key, r };
    },
    resolve: () => {
      const key = inputs();
      if (memo?.key !== key) memo = { key, r: sessionModel(cfg, sessionId, env) };
      return memo.r;
    },
  };
}

/** sessionModel with the window a local server reports for itself. Never throws. */
export async function sessionModelWithWindow(cfg: ServerConfig, sessionId: string, env: Env = process.env): Promise<ResolvedModel | UnresolvedModel> {
  return pickedModelWithWindow(cfg, getSession(openDb(cfg.dataDir), sessionId)?.model, env);
}

/** The model a session's pick names (none: the configured one), with the window a local server reports. Never throws. */
function pickedModelWithWindow(cfg: ServerConfig, picked: string | undefined, env: Env): Promise<ResolvedModel | UnresolvedModel> {
  return picked ? withWindow(cfg, resolveSpec(cfg, picked, env)) : currentModelWithWindow(cfg, env);
}

/**
 * The model of one turn, resolved once from the session as the turn read it (its pick) with its window,
 * and `steps`, which gives the turn's steps the session's model from then on, starting from this one
 * (resolved again only when the pick, settings, keys or environment change). Never throws.
 */
export async function sessionTurnModel(cfg: ServerConfig, session: { id: string; model?: string }, env: Env = process.env): Promise<{ resolved: ResolvedModel | UnresolvedModel; steps: StepModels }> {
  const steps = sessionModelForSteps(cfg, session.id, env);
  // taken before the window is asked: a change meanwhile counts from the first step
  const inputs = modelInputs(cfg, session.model, env);
  const resolved = await pickedModelWithWindow(cfg, session.model, env);
  steps.seed(inputs, resolved);
  return { resolved, steps };
}

const listCache = new Map<string, { at: number; group: ModelChoiceGroup }>();

/**
 * Whether a provider can be reached without more setup: its required key is stored or set, or (a server
 * the person names) it is the saved provider or its base URL's environment variable is set.
 */
function reachable(row: ProviderRow, savedProvider: string | null, keys: ReturnType<typeof storedKeys>, env: Env): boolean {
  if (row.secret?.required) return !!(keys[row.secret.name as keyof typeof keys] || env[row.secret.env]);
  return row.endpoint.setting && (savedProvider === row.name || !!(row.endpoint.env[0] && env[row.endpoint.env[0]]));
}

/** The providers this server can reach without more setup: the default's first, then every reachable one (the saved base URL for the saved provider). */
function configuredProviders(cfg: ServerConfig, env: Env): { provider: ProviderName; baseUrl: string | null }[] {
  const saved = getModelSettings(openDb(cfg.dataDir), cfg.mode);
  const k = storedKeys(cfg.dataDir);
  const def = currentModel(cfg, env).status.provider;
  // a script lists no models
  const rows = PROVIDER_TABLE.filter((r: ProviderRow) => r.listing && (r.name === def || reachable(r, saved.provider, k, env)));
  rows.sort((a, b) => Number(b.name === def) - Number(a.name === def));
  return rows.map((r) => ({ provider: r.name, baseUrl: saved.provider === r.name ? saved.baseUrl : null }));
}

/**
 * GET /api/models: the default model and, per configured provider, the models it lists (asked at most
 * once per MODEL_PICKER_CACHE_MS, each within MODEL_LIST_TIMEOUT_MS). Never throws: a provider that
 * cannot be reached comes back with its error and the models known without asking.
 */
export async function listModelChoices(cfg: ServerConfig, env: Env = process.env): Promise<ModelChoicesAnswer> {
  const def = currentModel(cfg, env);
  const defaultSpec = specOf(def);
  const groups = await Promise.all(
    configuredProviders(cfg, env).map(async ({ provider, baseUrl }) => {
      const key = `${provider} ${baseUrl ?? ''}`;
      const hit = listCache.get(key);
      if (hit && Date.now() - hit.at < BUDGET.MODEL_PICKER_CACHE_MS) return hit.group;
      const check = await checkModel({ provider, model: null, baseUrl, key: null }, { dataDir: cfg.dataDir, env });
      const group: ModelChoiceGroup = { provider, models: check.models, ...(check.models.length === 0 ? { error: check.message } : {}) };
      if (check.models.length > 0) listCache.set(key, { at: Date.now(), group });
      return group;
    }),
  );
  // the models in use are offered even when their provider lists none (or did not answer)
  if (def.ok && defaultSpec) {
    const g = groups.find((x) => x.provider === def.status.provider);
    if (g && !g.models.includes(def.status.model!)) g.models = [def.status.model!, ...g.models];
    if (!g) groups.unshift({ provider: def.status.provider as ProviderName, models: [def.status.model!] });
  }
  return { default: defaultSpec ? { spec: defaultSpec, label: def.status.label } : null, providers: groups };
}

/** GET /api/models?spec=: what a model is (its label) and whether it takes images, without asking the provider. */
export function modelCapability(cfg: ServerConfig, spec: string, env: Env = process.env): ModelCapabilityAnswer {
  const r = resolveSpec(cfg, spec, env);
  return { spec, ok: r.ok, label: r.status.label, imageInput: r.status.imageInput ?? { accepted: false, source: r.status.help ?? 'not configured' } };
}
