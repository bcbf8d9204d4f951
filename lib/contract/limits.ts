/**
 * Spending limits: a session's and a day's (every session of the data dir), in tokens and, where the catalogue has the
 * model's prices, in US dollars; a headless run may add its own (`clamp run --max-tokens/--max-cost`). A turn that
 * reaches one pauses before its next model request and asks the person (continue with a new limit, or stop); a run
 * nobody follows stops there. The server puts the turn's SpendGuard in its calls' services (a subagent's included, so
 * its steps count toward the session that started it).
 */

export type LimitScope = 'session' | 'day' | 'run';
export type LimitUnit = 'tokens' | 'usd';

/** A limit reached: which, what it is and what was used when it was checked. */
export interface LimitHit {
  scope: LimitScope;
  unit: LimitUnit;
  limit: number;
  used: number;
}

/** One limit as the ledger shows it: what is used against it (limit null: none set). */
export interface LimitUse {
  scope: LimitScope;
  unit: LimitUnit;
  used: number;
  limit: number | null;
}

/** The limits saved in the settings (null: no limit). */
export interface LimitSettings {
  sessionTokens: number | null;
  sessionCostUsd: number | null;
  dayTokens: number | null;
  dayCostUsd: number | null;
}

/** GET and PUT /api/settings/limits: the settings' limits and what every session spent today. */
export interface LimitSettingsView {
  limits: LimitSettings;
  today: { tokens: number; costUsd: number };
}

/** PUT /api/settings/limits: any of the limits (null removes one); its schema is in request-bodies.ts, which the page does not load. */
export type { LimitSettingsBody } from './request-bodies';

export const NO_LIMITS: LimitSettings = { sessionTokens: null, sessionCostUsd: null, dayTokens: null, dayCostUsd: null };

/** What one model request cost, as its ledger entry says. */
export interface SpendStep {
  inputTokens: { fresh: number; cacheRead: number; cacheWrite: number };
  outputTokens: number;
  costUsd: number | null;
}

/** One turn's spending: every request it (and its subagents) made is recorded, and the limits are checked before each. */
export interface SpendGuard {
  /** count one request's tokens and cost toward the session and the day; never throws */
  record(step: SpendStep): void;
  /** the first limit reached now, or null */
  reached(): LimitHit | null;
  /** the person continues with a new limit (stored: the session's, or the settings' daily one) */
  raise(hit: LimitHit, to: number): void;
  /** the turn stops at this limit (the person said so, or nobody is there to ask) */
  stop(hit: LimitHit): void;
  /** the limit this turn stopped at, if it did */
  stoppedAt(): LimitHit | null;
}

export const SPEND_SERVICE = 'spend';

/** The turn's SpendGuard in a call's services, if it has one. */
export function spendGuardOf(services: Record<string, unknown> | undefined): SpendGuard | undefined {
  const s = services?.[SPEND_SERVICE];
  return s && typeof s === 'object' && 'reached' in s ? (s as SpendGuard) : undefined;
}

/** The tokens one request counts for: every input token (fresh, cache read, cache write) and its output. */
export function stepTokens(s: SpendStep): number {
  return s.inputTokens.fresh + s.inputTokens.cacheRead + s.inputTokens.cacheWrite + s.outputTokens;
}

const SCOPE_WORD: Record<LimitScope, string> = { session: 'Session', day: 'Daily', run: 'Run' };

/** An amount in the limit's unit: "203,114 tokens", "$1.25". */
export function limitAmount(unit: LimitUnit, n: number): string {
  return unit === 'tokens' ? `${Math.round(n).toLocaleString('en-US')} tokens` : `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: n < 1 ? 4 : 2 })}`;
}

/** "Session limit of 200,000 tokens reached (203,114 used)." */
export function limitText(hit: LimitHit): string {
  const used = hit.unit === 'tokens' ? Math.round(hit.used).toLocaleString('en-US') : limitAmount('usd', hit.used);
  return `${SCOPE_WORD[hit.scope]} limit of ${limitAmount(hit.unit, hit.limit)} reached (${used} used).`;
}

/** The ledger's line for one limit: "143,200 / 200,000 tokens today". */
export function limitUseText(u: LimitUse): string {
  const when = u.scope === 'day' ? ' today' : u.scope === 'session' ? ' this session' : ' this run';
  if (u.limit === null) return `${limitAmount(u.unit, u.used)}${when} (no limit)`;
  if (u.unit === 'tokens') return `${Math.round(u.used).toLocaleString('en-US')} / ${limitAmount('tokens', u.limit)}${when}`;
  return `${limitAmount('usd', u.used)} / ${limitAmount('usd', u.limit)}${when}`;
}

/**
 * A new limit the person typed, checked against what is used: the number, or the reason it cannot be (the
 * approvals route answers it as a 400).
 */
export function newLimitProblem(hit: Pick<LimitHit, 'unit' | 'used'>, text: string | null | undefined): string | null {
  const n = Number((text ?? '').replace(/[,_\s$]/g, ''));
  if (!Number.isFinite(n) || n <= 0) return `The new limit "${text ?? ''}" is not a positive number${hit.unit === 'tokens' ? ' of tokens' : ' of US dollars'}. Type one, or stop.`;
  if (n <= hit.used) return `The new limit must be above what is already used (${limitAmount(hit.unit, hit.used)}). Type a larger one, or stop.`;
  return null;
}

/** The number in a new limit the person typed (checked with newLimitProblem first). */
export function parseLimit(text: string): number {
  return Number(text.replace(/[,_\s$]/g, ''));
}
