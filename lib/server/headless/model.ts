import { parseModelSpec, type ResolvedModel, type UnresolvedModel } from '../../agent/providers';
import type { ServerConfig } from '../http';
import { currentModelWithWindow, withWindow } from '../model';
import { resolveSpec, sessionModelWithWindow } from '../session-model';
import { UsageError } from './args';

/**
 * The model of a headless run: --model provider:model when given (with the settings page's base URL and
 * window override when they are for that provider), else the session's own pick (the header's picker),
 * else the one a new turn on the page uses. Throws UsageError for a --model that names no provider; a
 * model that cannot be used comes back unresolved.
 */
export async function modelForRun(cfg: ServerConfig, spec: string | undefined, sessionId: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedModel | UnresolvedModel> {
  if (spec === undefined) return sessionId ? sessionModelWithWindow(cfg, sessionId, env) : currentModelWithWindow(cfg, env);
  const parsed = parseModelSpec(spec);
  if ('error' in parsed) throw new UsageError(parsed.error.replace(/^CLAMP_MODEL=/, '--model '));
  return withWindow(cfg, resolveSpec(cfg, spec, env));
}
