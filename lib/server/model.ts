import { resolveModel, type ResolvedModel, type UnresolvedModel } from '../agent/providers';
import { withServerWindow } from '../agent/windows';
import { openDb } from '../store/db';
import { readSecrets } from '../store/secrets';
import { getModelSettings } from '../store/settings';
import type { ServerConfig } from './http';

/** The model a new turn uses: settings saved on the page, then the environment. Never throws. */
export function currentModel(cfg: ServerConfig, env: NodeJS.ProcessEnv = process.env): ResolvedModel | UnresolvedModel {
  const db = openDb(cfg.dataDir);
  let secrets: ReturnType<typeof readSecrets> = {};
  try {
    secrets = readSecrets(cfg.dataDir);
  } catch {
    // a broken secrets file: the environment's keys still work, and the settings page shows the error
  }
  return resolveModel(env, getModelSettings(db, cfg.mode), {
    anthropic: secrets.anthropic,
    openai: secrets.openai,
    openaiCompatible: secrets['openai-compatible'],
  });
}

/** currentModel, with the window a local server reports for itself (asked once, then remembered). Never throws. */
export async function currentModelWithWindow(cfg: ServerConfig, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedModel | UnresolvedModel> {
  const r = currentModel(cfg, env);
  if (!r.ok) return r;
  return { ...r, status: await withServerWindow(r.status, r.baseUrl) };
}
