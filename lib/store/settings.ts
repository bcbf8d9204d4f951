import path from 'node:path';
import type { ModelSettings, SandboxSettings, SettingsUpdate, SettingsView } from '../contract/protocol';
import type { NotifySettings } from '../contract/notify';
import type { PermissionMode } from '../contract/types';
import type { Db } from './db';
import { envSecretStatus, SECRETS_FILE_NAME, secretStatus, writeSecrets } from './secrets';

const MODEL_SETTINGS_KEY = 'model';
const SANDBOX_SETTINGS_KEY = 'sandbox';
const NOTIFY_SETTINGS_KEY = 'notifications';
export { SANDBOX_SETTING_LEVELS } from '../contract/rest';

/** A stored JSON setting, or undefined. */
export function getSetting<T>(db: Db, key: string): T | undefined {
  const row = db.prepare('SELECT json FROM settings WHERE key = ?').get(key) as { json: string } | undefined;
  return row ? (JSON.parse(row.json) as T) : undefined;
}

/** Store a JSON setting (replacing it). */
export function setSetting(db: Db, key: string, value: unknown): void {
  db.prepare('INSERT INTO settings (key, json, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at').run(
    key,
    JSON.stringify(value),
    Date.now(),
  );
}

/** The model settings: what the settings page saved over the defaults (defaultMode from CLAMP_MODE). */
export function getModelSettings(db: Db, defaultMode: PermissionMode = 'default'): ModelSettings {
  const saved = getSetting<Partial<ModelSettings>>(db, MODEL_SETTINGS_KEY) ?? {};
  return { provider: null, model: null, baseUrl: null, contextWindow: null, defaultMode, ...saved };
}

/** Merge a change into the saved model settings; returns the result. */
export function setModelSettings(db: Db, patch: Partial<ModelSettings>, defaultMode: PermissionMode = 'default'): ModelSettings {
  return db.transaction(() => {
    const saved = getSetting<Partial<ModelSettings>>(db, MODEL_SETTINGS_KEY) ?? {};
    const next: Partial<ModelSettings> = { ...saved };
    for (const [k, v] of Object.entries(patch) as [keyof ModelSettings, unknown][]) {
      if (v !== undefined) (next as Record<string, unknown>)[k] = v;
    }
    setSetting(db, MODEL_SETTINGS_KEY, next);
    return getModelSettings(db, defaultMode);
  })();
}

/** The notification setting (on unless turned off). */
export function getNotifySettings(db: Db): NotifySettings {
  return { on: getSetting<Partial<NotifySettings>>(db, NOTIFY_SETTINGS_KEY)?.on !== false };
}

/** Turn notifications on or off; returns the result. */
export function setNotifySettings(db: Db, next: NotifySettings): NotifySettings {
  setSetting(db, NOTIFY_SETTINGS_KEY, { on: next.on });
  return getNotifySettings(db);
}

/** The saved sandbox settings over the defaults (by mode, no network). */
export function getSandboxSettings(db: Db): SandboxSettings {
  return { level: 'by-mode', network: false, passEnv: [], hide: [], show: [], allowHosts: [], ...(getSetting<Partial<SandboxSettings>>(db, SANDBOX_SETTINGS_KEY) ?? {}) };
}

/** Merge a change into the saved sandbox settings; returns the result. */
export function setSandboxSettings(db: Db, patch: Partial<SandboxSettings>): SandboxSettings {
  const next = { ...getSandboxSettings(db) };
  if (patch.level !== undefined) next.level = patch.level;
  if (patch.network !== undefined) next.network = patch.network;
  // the lists are replaced whole, without blanks and repeats
  const list = (v: readonly string[]) => [...new Set(v.map((x) => x.trim()).filter(Boolean))];
  if (patch.passEnv !== undefined) next.passEnv = list(patch.passEnv);
  if (patch.hide !== undefined) next.hide = list(patch.hide);
  if (patch.show !== undefined) next.show = list(patch.show);
  if (patch.allowHosts !== undefined) next.allowHosts = list(patch.allowHosts);
  setSetting(db, SANDBOX_SETTINGS_KEY, next);
  return next;
}

/** What CLAMP_SANDBOX / CLAMP_SANDBOX_NETWORK set (they win over the saved settings), and what CLAMP_SANDBOX_ENV, _HIDE and _SHOW add. */
export function sandboxEnvView(env: NodeJS.ProcessEnv): SettingsView['sandboxEnv'] {
  const out: SettingsView['sandboxEnv'] = {};
  if (env.CLAMP_SANDBOX) out.level = env.CLAMP_SANDBOX;
  if (env.CLAMP_SANDBOX_NETWORK !== undefined && env.CLAMP_SANDBOX_NETWORK !== '') out.network = env.CLAMP_SANDBOX_NETWORK === '1' || env.CLAMP_SANDBOX_NETWORK === 'true';
  const lists = { passEnv: 'CLAMP_SANDBOX_ENV', hide: 'CLAMP_SANDBOX_HIDE', show: 'CLAMP_SANDBOX_SHOW', allowHosts: 'CLAMP_SANDBOX_ALLOW_HOSTS' } as const;
  for (const [key, name] of Object.entries(lists) as [keyof typeof lists, string][]) {
    const v = (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (v.length) out[key] = v;
  }
  return out;
}

/** GET /api/settings: the settings and which keys are set, in the data dir and in the environment (never the keys). */
export function settingsView(db: Db, dataDir: string, defaultMode: PermissionMode, env: NodeJS.ProcessEnv = process.env): SettingsView {
  return {
    settings: getModelSettings(db, defaultMode),
    sandbox: getSandboxSettings(db),
    sandboxEnv: sandboxEnvView(env),
    keys: secretStatus(dataDir),
    envKeys: envSecretStatus(env),
    secretsFile: path.join(dataDir, SECRETS_FILE_NAME),
  };
}

/** PUT /api/settings: save the settings (database) and keys (0600 file); returns the new view. */
export function updateSettings(db: Db, dataDir: string, update: SettingsUpdate, defaultMode: PermissionMode, env: NodeJS.ProcessEnv = process.env): SettingsView {
  const { keys, sandbox, ...settings } = update;
  if (keys) writeSecrets(dataDir, keys);
  if (sandbox) setSandboxSettings(db, sandbox);
  setModelSettings(db, settings, defaultMode);
  return settingsView(db, dataDir, defaultMode, env);
}
