import { resolveModel, type ResolvedModel, type UnresolvedModel } from '../agent/providers';
import { withServerWindow } from '../agent/windows';
import { openDb } from '../store/db';
import { readSecrets } from '../store/secrets';
import { getModelSettings } from '../store/settings';
import type { ServerConfig } from './http';

/** The stored API keys; none when the secrets file is broken (the environment's keys still work, and the settings page shows the error). */
export function storedKeys(dataDir: string): ReturnType<typeof readSecrets> {
  try {
    return readSecrets(dataDir);
  } catch {
    return {};
  }
}

/** The model a new turn uses: settings saved on the page, then the environment. Never throws. */
export function currentModel(cfg: ServerConfig, env: NodeJS.ProcessEnv = process.env): ResolvedModel | UnresolvedModel {
  return resolveModel(env, getModelSettings(openDb(cfg.dataDir), cfg.mode), storedKeys(cfg.dataDir));
}

/**
 * A resolved model with the window its server reports for itself: asked once, then remembered in the
 * data dir for WINDOW_DISCOVERY_CACHE_MS (the next `clamp run` does not ask again). Never throws.
 */
export async function withWindow(cfg: ServerConfig, r: ResolvedModel | UnresolvedModel): Promise<ResolvedModel | UnresolvedModel> {
  if (!r.ok) return r;
  return { ...r, status: await withServerWindow(r.status, r.baseUrl, { dataDir: cfg.dataDir }) };
}

/** currentModel, with the window a local server reports for itself (withWindow). Never throws. */
export async function currentModelWithWindow(cfg: ServerConfig, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedModel | UnresolvedModel> {
  return withWindow(cfg, currentModel(cfg, env));
}
