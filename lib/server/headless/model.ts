import { parseModelSpec, resolveModel, type ResolvedModel, type UnresolvedModel } from '../../agent/providers';
import { withServerWindow } from '../../agent/windows';
import { openDb } from '../../store/db';
import { readSecrets } from '../../store/secrets';
import { getModelSettings } from '../../store/settings';
import type { ServerConfig } from '../http';
import { currentModelWithWindow } from '../model';
import { UsageError } from './args';

/**
 * The model of a headless run: --model provider:model when given (with the settings page's base URL and
 * window override only when they are for that provider), else the one a new turn on the page uses.
 * Throws UsageError for a --model that names no provider; a model that cannot be used comes back unresolved.
 */
export async function modelForRun(cfg: ServerConfig, spec: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedModel | UnresolvedModel> {
  if (spec === undefined) return currentModelWithWindow(cfg, env);
  const parsed = parseModelSpec(spec);
  if ('error' in parsed) throw new UsageError(parsed.error.replace(/^CLAMP_MODEL=/, '--model '));
  const saved = getModelSettings(openDb(cfg.dataDir), cfg.mode);
  const same = saved.provider === parsed.provider;
  let secrets: ReturnType<typeof readSecrets> = {};
  try {
    secrets = readSecrets(cfg.dataDir);
  } catch {
    // a broken secrets file: the environment's keys still work
  }
  const r = resolveModel(
    { ...env, CLAMP_MODEL: spec },
    { provider: null, model: null, baseUrl: same ? saved.baseUrl : null, contextWindow: same && saved.model === parsed.model ? saved.contextWindow : null },
    { anthropic: secrets.anthropic, openai: secrets.openai, openaiCompatible: secrets['openai-compatible'] },
  );
  if (!r.ok) return r;
  return { ...r, status: await withServerWindow(r.status, r.baseUrl) };
}
