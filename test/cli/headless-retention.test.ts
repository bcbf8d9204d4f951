/**
 * `clamp run` keeps a data dir that only scripts use bounded: at the end of a run it cleans up when the latest
 * clean-up (by the server or an earlier run) is at least the sweep interval old; a loop of runs does not clean up
 * at every run; a data dir never cleaned up is first cleaned one interval after its first run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUDGET } from '../../lib/contract/budget';
import { runHeadless } from '../../lib/server/headless/run';
import { runRetentionIfDue } from '../../lib/server/retention';
import { closeDb, openDb } from '../../lib/store/db';
import { getSetting, setSetting } from '../../lib/store/settings';
import { tempWorkspace } from '../helpers';

const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as NodeJS.ProcessEnv;
const DAY = 24 * 60 * 60_000;
const HOUR = 60 * 60_000;

let ws: ReturnType<typeof tempWorkspace>;
let model: string;
beforeEach(() => {
  ws = tempWorkspace('clamp-headless-retention-');
  const file = path.join(ws.root, 'script.json');
  fs.writeFileSync(file, JSON.stringify([{ text: 'Hello.' }, { text: 'Hello again.' }]));
  model = `scripted:${file}`;
});
afterEach(() => {
  closeDb(ws.dataDir);
  ws.cleanup();
});

/** A log in the data dir last written `ageMs` ago. */
function oldLog(name: string, ageMs: number): string {
  const p = path.join(ws.dataDir, 'logs', name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, 'old output\n');
  const t = new Date(Date.now() - ageMs);
  fs.utimesSync(p, t, t);
  return p;
}

async function run(): Promise<void> {
  const err = new PassThrough();
  let stderr = '';
  err.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await runHeadless(['say hello'], { stdin: new PassThrough(), stdout: new PassThrough(), stderr: err, env: { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: model } });
  expect(code, stderr).toBe(0);
}

describe('clean-up at the end of a headless run', () => {
  it('removes old logs when the latest clean-up is older than the interval, and not again at the next run', async () => {
    setSetting(openDb(ws.dataDir), 'retention-last', { at: Date.now() - BUDGET.RETENTION_SWEEP_INTERVAL_MS - HOUR, removedFiles: 0, freedBytes: 0, skippedLive: 0, checkpoints: [] });
    const first = oldLog('2020-01-01T00-00-00-000Z-cmd-a.stdout.log', 20 * DAY);
    await run();
    expect(fs.existsSync(first)).toBe(false);
    const report = getSetting<{ at: number; removedFiles: number }>(openDb(ws.dataDir), 'retention-last')!;
    expect(Date.now() - report.at).toBeLessThan(60_000);
    expect(report.removedFiles).toBeGreaterThanOrEqual(1);

    // the next run in the same hour leaves the data dir alone
    const second = oldLog('2020-01-02T00-00-00-000Z-cmd-b.stdout.log', 20 * DAY);
    await run();
    expect(fs.existsSync(second)).toBe(true);
  });

  it('a data dir never cleaned up: the first run notes the time, a run one interval later cleans up', async () => {
    const log = oldLog('2020-01-01T00-00-00-000Z-cmd-c.stdout.log', 20 * DAY);
    await run();
    expect(fs.existsSync(log)).toBe(true);
    const db = openDb(ws.dataDir);
    const seen = getSetting<number>(db, 'retention-first-seen')!;
    expect(typeof seen).toBe('number');
    await expect(runRetentionIfDue(ws.dataDir, seen + BUDGET.RETENTION_SWEEP_INTERVAL_MS - 1)).resolves.toBeUndefined();
    expect(fs.existsSync(log)).toBe(true);
    const report = await runRetentionIfDue(ws.dataDir, seen + BUDGET.RETENTION_SWEEP_INTERVAL_MS);
    expect(report?.removedFiles).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(log)).toBe(false);
  });
});
