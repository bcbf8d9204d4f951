import type { LimitHit, LimitSettings, LimitSettingsView, LimitUse, SpendGuard } from '../contract/limits';
import { NO_LIMITS, stepTokens } from '../contract/limits';
import { openDb, type Db } from '../store/db';
import { addSpend, dayOf, daySpend, getLimitSettings, getSessionLimits, sessionSpend, setLimitSettings, setSessionLimit, type Spent } from '../store/spend';
import type { ServerConfig } from './http';

/** A headless run's own limits (`clamp run --max-tokens/--max-cost`), counted from the run's start. */
export interface RunLimits {
  maxTokens?: number;
  maxCostUsd?: number;
}

/**
 * The limits that apply to a session: the settings', or the session's own where the person raised it past them (a
 * settings' limit raised later past the session's own applies; one removed in the settings removes the session's too).
 */
function limitsOf(db: Db, sessionId: string, settings: LimitSettings): { tokens: number | null; costUsd: number | null } {
  const own = getSessionLimits(db, sessionId);
  const pick = (set: number | null, raised: number | null) => (set === null ? null : Math.max(set, raised ?? 0));
  return { tokens: pick(settings.sessionTokens, own.tokens), costUsd: pick(settings.sessionCostUsd, own.costUsd) };
}

/** The first limit reached among the run's, the session's and the day's, tokens before money. */
function firstReached(checks: { scope: LimitHit['scope']; spent: Spent; tokens: number | null | undefined; costUsd: number | null | undefined }[]): LimitHit | null {
  for (const c of checks) {
    if (c.tokens != null && c.spent.tokens >= c.tokens) return { scope: c.scope, unit: 'tokens', limit: c.tokens, used: c.spent.tokens };
    if (c.costUsd != null && c.spent.costUsd >= c.costUsd) return { scope: c.scope, unit: 'usd', limit: c.costUsd, used: c.spent.costUsd };
  }
  return null;
}

/**
 * One turn's SpendGuard over the store: each request is counted toward `sessionId` (the listed session; a subagent's
 * requests come through its parent's guard) and today; the limits are read afresh at every check, so a limit changed
 * in the settings applies from the next request. `run`: a headless run's own limits, counted from now.
 */
export function spendGuard(db: Db, o: { sessionId: string; run?: RunLimits; now?: () => Date }): SpendGuard {
  const now = o.now ?? (() => new Date());
  const start = sessionSpend(db, o.sessionId);
  const run = { ...o.run };
  let stopped: LimitHit | null = null;
  return {
    record: (step) => {
      try {
        addSpend(db, o.sessionId, dayOf(now()), stepTokens(step), step.costUsd);
      } catch (err) {
        console.error('clamp: could not count a request toward the spending limits:', err);
      }
    },
    reached: () => {
      const settings = getLimitSettings(db);
      // checked before every request: with no limit anywhere, nothing spent needs counting up
      const none = (Object.keys(NO_LIMITS) as (keyof LimitSettings)[]).every((k) => settings[k] == null);
      if (none && run.maxTokens === undefined && run.maxCostUsd === undefined) return null;
      const session = sessionSpend(db, o.sessionId);
      const own = limitsOf(db, o.sessionId, settings);
      const runSpent = { tokens: session.tokens - start.tokens, costUsd: session.costUsd - start.costUsd };
      return firstReached([
        { scope: 'run', spent: runSpent, tokens: run.maxTokens, costUsd: run.maxCostUsd },
        { scope: 'session', spent: session, tokens: own.tokens, costUsd: own.costUsd },
        { scope: 'day', spent: daySpend(db, dayOf(now())), tokens: settings.dayTokens, costUsd: settings.dayCostUsd },
      ]);
    },
    raise: (hit, to) => {
      if (hit.scope === 'run') run[hit.unit === 'tokens' ? 'maxTokens' : 'maxCostUsd'] = to;
      else if (hit.scope === 'session') setSessionLimit(db, o.sessionId, hit.unit, to);
      else setLimitSettings(db, hit.unit === 'tokens' ? { dayTokens: to } : { dayCostUsd: to });
    },
    stop: (hit) => {
      stopped = hit;
    },
    stoppedAt: () => stopped,
  };
}

/** What a session and today spent against their limits, for the ledger (money only where a limit is set or something was priced). */
export function limitUses(cfg: ServerConfig, sessionId: string): LimitUse[] {
  const db = openDb(cfg.dataDir);
  const settings = getLimitSettings(db);
  const own = limitsOf(db, sessionId, settings);
  const session = sessionSpend(db, sessionId);
  const day = daySpend(db, dayOf());
  const out: LimitUse[] = [
    { scope: 'session', unit: 'tokens', used: session.tokens, limit: own.tokens },
    { scope: 'day', unit: 'tokens', used: day.tokens, limit: settings.dayTokens },
  ];
  if (own.costUsd !== null || session.costUsd > 0) out.push({ scope: 'session', unit: 'usd', used: session.costUsd, limit: own.costUsd });
  if (settings.dayCostUsd !== null || day.costUsd > 0) out.push({ scope: 'day', unit: 'usd', used: day.costUsd, limit: settings.dayCostUsd });
  return out;
}

/** GET /api/settings/limits: the settings' limits and today's spending. */
export function limitSettingsView(cfg: ServerConfig): LimitSettingsView {
  const db = openDb(cfg.dataDir);
  return { limits: getLimitSettings(db), today: daySpend(db, dayOf()) };
}

/** PUT /api/settings/limits: change any of them (null removes one). */
export function saveLimitSettings(cfg: ServerConfig, patch: Partial<LimitSettings>): LimitSettingsView {
  setLimitSettings(openDb(cfg.dataDir), patch);
  return limitSettingsView(cfg);
}
