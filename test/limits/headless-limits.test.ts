import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { closeDb, openDb } from '../../lib/store/db';
import { loadMessages } from '../../lib/store/messages';
import { sessionSpend, setLimitSettings } from '../../lib/store/spend';
import { parseRunArgs, UsageError } from '../../lib/server/headless/args';
import { startFakeOpenAI, turnPosition } from '../fake-openai';
import { tempWorkspace } from '../helpers';

const BIN = path.join(ROOT, 'bin/clamp.mjs');
const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as unknown as NodeJS.ProcessEnv;
const USAGE = { prompt_tokens: 1000, completion_tokens: 100 };

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;

/** "steps N <tag>": N read_file calls, one per step, then "Done <tag>." — each request 1,100 tokens. */
beforeAll(async () => {
  ws = tempWorkspace('clamp-limits-run-');
  ws.write('a.txt', 'alpha\n');
  fake = await startFakeOpenAI((req, index) => {
    const { text, results } = turnPosition(req);
    const m = /steps (\d+) (\S+)/.exec(text);
    if (m && results < Number(m[1])) return { usage: USAGE, toolCalls: [{ name: 'read_file', args: { path: 'a.txt' }, id: `call_${index}` }] };
    return { usage: USAGE, text: `Done ${m?.[2] ?? ''}.` };
  });
});
afterAll(async () => {
  closeDb(ws.dataDir);
  await fake.close();
  ws.cleanup();
});

function clampRun(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url, CLAMP_DIAGNOSTICS: '0' };
    const child = spawn(process.execPath, [BIN, 'run', ...args], { cwd: ws.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const requestsOf = (tag: string) => fake.requests.filter((r) => turnPosition(r).text.split(' ').includes(tag)).length;

describe('clamp run at a spending limit', { timeout: 240_000 }, () => {
  it('--max-tokens: the turn stops before the request past the limit, exit 6, the usage against the limit said', async () => {
    const r = await clampRun(['--max-tokens', '2000', 'steps 5 h1']);
    expect(r.code, r.stderr).toBe(6);
    // two requests (2,200 tokens) reached it: the third was never sent
    expect(requestsOf('h1')).toBe(2);
    expect(r.stdout).toContain('Run limit of 2,000 tokens reached (2,200 used). The turn stopped before its next model request.');
    expect(r.stderr).toMatch(/clamp run: Run limit of 2,000 tokens reached \(2,200 used\)\. Stopped before the next model request .* · 2 step\(s\) · 2 tool call\(s\) · exit 6 · continue with --session (\S+)/);
    const session = /continue with --session (\S+)/.exec(r.stderr)![1];
    // both calls' results are stored; the spending counted toward the session
    const db = openDb(ws.dataDir);
    expect(JSON.stringify(loadMessages(db, session)).match(/alpha/g)?.length).toBeGreaterThanOrEqual(2);
    expect(sessionSpend(db, session).tokens).toBe(2200);
  });

  it('--json: the summary says spending-limit with the limit; a settings daily limit stops a run too', async () => {
    setLimitSettings(openDb(ws.dataDir), { dayTokens: 3000 });
    const r = await clampRun(['--json', 'steps 5 h2']);
    expect(r.code, r.stderr).toBe(6);
    // 2,200 from the first run: one more request reaches the daily limit
    expect(requestsOf('h2')).toBe(1);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { end: string; exitCode: number; limit: unknown };
    expect(summary).toMatchObject({ end: 'spending-limit', exitCode: 6, limit: { scope: 'day', unit: 'tokens', limit: 3000, used: 3300 } });
    setLimitSettings(openDb(ws.dataDir), { dayTokens: null });
  });

  it('parses --max-tokens and --max-cost, and refuses what is not a limit', () => {
    expect(parseRunArgs(['--max-tokens', '200,000', '--max-cost=$1.50', 'x'])).toMatchObject({ maxTokens: 200_000, maxCostUsd: 1.5 });
    expect(() => parseRunArgs(['--max-tokens', '0', 'x'])).toThrow(new UsageError('--max-tokens 0 is not a whole number of tokens of at least 1.'));
    expect(() => parseRunArgs(['--max-cost', 'lots', 'x'])).toThrow(new UsageError('--max-cost lots is not an amount of US dollars above 0 (e.g. --max-cost 0.50).'));
  });
});
