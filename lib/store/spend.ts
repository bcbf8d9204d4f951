import { NO_LIMITS, type LimitSettings, type LimitUnit } from '../contract/limits';
import type { Db } from './db';
import { getSetting, setSetting } from './settings';

const LIMITS_SETTINGS_KEY = 'limits';

/** Tokens and money spent (cost counts only requests whose model has catalogue prices). */
export interface Spent {
  tokens: number;
  costUsd: number;
}

/** The day a moment belongs to, in this machine's time zone: YYYY-MM-DD. */
export function dayOf(t: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}`;
}

/** Count one request toward a (listed) session on a day. */
export function addSpend(db: Db, sessionId: string, day: string, tokens: number, costUsd: number | null): void {
  db.prepare(
    `INSERT INTO spend (session_id, day, tokens, cost_usd) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id, day) DO UPDATE SET tokens = tokens + excluded.tokens, cost_usd = cost_usd + excluded.cost_usd`,
  ).run(sessionId, day, Math.max(0, Math.round(tokens)), Math.max(0, costUsd ?? 0));
}

/** What a session (its subagents included) spent, every day. */
export function sessionSpend(db: Db, sessionId: string): Spent {
  const r = db.prepare('SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS cost FROM spend WHERE session_id = ?').get(sessionId) as { tokens: number; cost: number };
  return { tokens: r.tokens, costUsd: r.cost };
}

/** What every session of the data dir spent on a day (deleted sessions' spending included). */
export function daySpend(db: Db, day: string): Spent {
  const r = db.prepare('SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS cost FROM spend WHERE day = ?').get(day) as { tokens: number; cost: number };
  return { tokens: r.tokens, costUsd: r.cost };
}

/** The limits of the settings page (null: none). */
export function getLimitSettings(db: Db): LimitSettings {
  return { ...NO_LIMITS, ...(getSetting<Partial<LimitSettings>>(db, LIMITS_SETTINGS_KEY) ?? {}) };
}

/** Merge a change into the settings' limits (null removes one); returns the result. */
export function setLimitSettings(db: Db, patch: Partial<LimitSettings>): LimitSettings {
  return db.transaction(() => {
    const next = { ...getLimitSettings(db) };
    for (const k of Object.keys(NO_LIMITS) as (keyof LimitSettings)[]) if (patch[k] !== undefined) next[k] = patch[k];
    setSetting(db, LIMITS_SETTINGS_KEY, next);
    return next;
  })();
}

/** A session's own limits, raised past the settings' when the person continued at one (null: the settings' apply). */
export function getSessionLimits(db: Db, sessionId: string): { tokens: number | null; costUsd: number | null } {
  const r = db.prepare('SELECT max_tokens, max_cost_usd FROM session_limits WHERE session_id = ?').get(sessionId) as { max_tokens: number | null; max_cost_usd: number | null } | undefined;
  return { tokens: r?.max_tokens ?? null, costUsd: r?.max_cost_usd ?? null };
}

/** Set a session's own limit in one unit. */
export function setSessionLimit(db: Db, sessionId: string, unit: LimitUnit, value: number): void {
  const col = unit === 'tokens' ? 'max_tokens' : 'max_cost_usd';
  db.prepare(`INSERT INTO session_limits (session_id, ${col}) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET ${col} = excluded.${col}`).run(sessionId, value);
}
