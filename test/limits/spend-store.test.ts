import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../lib/store/db';
import { createSession, deleteSession } from '../../lib/store/sessions';
import { addSpend, daySpend, getLimitSettings, getSessionLimits, sessionSpend, setLimitSettings, setSessionLimit } from '../../lib/store/spend';
import { limitText, limitUseText, newLimitProblem } from '../../lib/contract/limits';

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
});
