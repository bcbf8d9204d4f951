import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession, deleteSession } from '../../lib/store/sessions';
import { addSpend, daySpend, getLimitSettings, getSessionLimits, sessionSpend, setLimitSettings, setSessionLimit } from '../../lib/store/spend';
import { limitText, limitUseText, newLimitProblem } from '../../lib/contract/limits';
import { spendGuard } from '../../lib/server/limits';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    closeDb(d);
    fs.rmSync(d, { recursive: true, force: true });
  }
});

function db() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-spend-'));
  dirs.push(d);
  return openDb(d);
}

describe('spending store', () => {
  it('adds per session and day; a day sums every session, a deleted one included', () => {
    const s = db();
    const a = createSession(s, { workspace: '/w' }).id;
    const b = createSession(s, { workspace: '/w' }).id;
    addSpend(s, a, '2026-12-01', 1000, 0.5);
    addSpend(s, a, '2026-12-02', 200, null);
    addSpend(s, b, '2026-12-02', 300, 0.25);
    expect(sessionSpend(s, a)).toEqual({ tokens: 1200, costUsd: 0.5 });
    expect(daySpend(s, '2026-12-02')).toEqual({ tokens: 500, costUsd: 0.25 });
    deleteSession(s, '/w', b);
    expect(daySpend(s, '2026-12-02').tokens).toBe(500);
  });

  it('keeps the settings limits and a session raised limit', () => {
    const s = db();
    const a = createSession(s, { workspace: '/w' }).id;
    expect(getLimitSettings(s)).toEqual({ sessionTokens: null, sessionCostUsd: null, dayTokens: null, dayCostUsd: null });
    setLimitSettings(s, { dayTokens: 1_000_000 });
    expect(setLimitSettings(s, { sessionCostUsd: 2 })).toEqual({ sessionTokens: null, sessionCostUsd: 2, dayTokens: 1_000_000, dayCostUsd: null });
    setSessionLimit(s, a, 'tokens', 400_000);
    setSessionLimit(s, a, 'usd', 3);
    expect(getSessionLimits(s, a)).toEqual({ tokens: 400_000, costUsd: 3 });
  });

  it('words a limit and checks a new one', () => {
    expect(limitText({ scope: 'session', unit: 'tokens', limit: 200_000, used: 203_114 })).toBe('Session limit of 200,000 tokens reached (203,114 used).');
    expect(limitUseText({ scope: 'day', unit: 'tokens', used: 143_200, limit: 200_000 })).toBe('143,200 / 200,000 tokens today');
    expect(limitText({ scope: 'day', unit: 'usd', limit: 1, used: 1.0123 })).toBe('Daily limit of $1.00 reached ($1.01 used).');
    expect(newLimitProblem({ unit: 'tokens', used: 203_114 }, '200,000')).toBe('The new limit must be above what is already used (203,114 tokens). Type a larger one, or stop.');
    expect(newLimitProblem({ unit: 'tokens', used: 1 }, 'lots')).toContain('is not a positive number of tokens');
    expect(newLimitProblem({ unit: 'tokens', used: 1 }, '400,000')).toBeNull();
  });

  it("a guard: the session's raised limit applies over the settings', a larger settings' limit over it, none when the settings remove it", () => {
    const s = db();
    const a = createSession(s, { workspace: '/w' }).id;
    const step = { inputTokens: { fresh: 900, cacheRead: 50, cacheWrite: 50 }, outputTokens: 100, costUsd: 0.01 };
    const g = spendGuard(s, { sessionId: a, now: () => new Date(2026, 11, 2, 12) });
    g.record(step);
    g.record(step);
    expect(sessionSpend(s, a)).toEqual({ tokens: 2200, costUsd: 0.02 });
    expect(daySpend(s, '2026-12-02').tokens).toBe(2200);
    expect(g.reached()).toBeNull();
    setLimitSettings(s, { sessionTokens: 2000 });
    const hit = g.reached()!;
    expect(hit).toEqual({ scope: 'session', unit: 'tokens', limit: 2000, used: 2200 });
    g.raise(hit, 5000);
    expect(g.reached()).toBeNull();
    expect(getSessionLimits(s, a).tokens).toBe(5000);
    setLimitSettings(s, { sessionTokens: 1000, sessionCostUsd: 0.02 });
    // the raised 5,000 tokens still hold; the money limit is reached
    expect(g.reached()).toEqual({ scope: 'session', unit: 'usd', limit: 0.02, used: 0.02 });
    setLimitSettings(s, { sessionTokens: null, sessionCostUsd: null, dayTokens: 2100 });
    expect(g.reached()).toEqual({ scope: 'day', unit: 'tokens', limit: 2100, used: 2200 });
    // a run's own limit counts from the guard's start
    const run = spendGuard(s, { sessionId: a, run: { maxTokens: 1000 }, now: () => new Date(2026, 11, 3, 12) });
    expect(run.reached()).toBeNull();
    run.record(step);
    expect(run.reached()).toEqual({ scope: 'run', unit: 'tokens', limit: 1000, used: 1100 });
  });
});
