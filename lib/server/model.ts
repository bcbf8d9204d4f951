import { resolveModel, type ResolvedModel, type UnresolvedModel } from '../agent/providers';
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
