import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyDecision } from '../../lib/contract/types';
import { verdictFromRules } from '../../lib/store/rules';
import { runCommandTool } from '../../lib/tools/commands/run-command';
import { TaskManager } from '../../lib/tasks/manager';
import { taskOutputTool } from '../../lib/tools/commands/task-output';
import { harness, tempWorkspace, loopbackCounter } from '../helpers';

/**
 * run_command in the sandbox through the real dispatch: the level the mode picks, the note a failure
 * the sandbox caused gets, escalation (asked, never automatic, saved only for that escalation), and a
 * sandbox that cannot start (every command asks; auto mode refuses).
 */

let ws: ReturnType<typeof tempWorkspace>;
let outsideDir = '';
const loopback = loopbackCounter();
beforeEach(() => {
  ws = tempWorkspace('clamp-rcs-');
  outsideDir = fs.mkdtempSync(path.join('/var/tmp', 'clamp-rcs-out-'));
  loopback.hits = 0;
});
afterEach(() => {
  ws.cleanup();
  fs.rmSync(outsideDir, { recursive: true, force: true });
});

/** An approver whose saved rules are the given allow patterns (the store's own matching). */
const rules = (allow: string[]) => ({
  rule: (_t: unknown, _i: unknown, d: PolicyDecision) => verdictFromRules(allow.map((pattern) => ({ pattern, action: 'allow' as const })), d.subRuleKeys ?? [], !!d.opaque),
});

describe('run_command in the sandbox', () => {
  it('a write outside the workspace fails with the sandbox note; the workspace is writable', async () => {
    // outside the workspace and not under /tmp (the sandbox's /tmp is its own, so a write there changes nothing anyway)
    const outside = path.join(outsideDir, 'outside.txt');
    // a script: the judge sees `sh ./w.sh`, an ordinary command, so only the sandbox stands in the way
    ws.write('w.sh', `echo x > inside.txt && echo y > ${outside}\n`);
    const h = harness([runCommandTool], ws);
    const r = await h.call('run_command', { command: 'sh ./w.sh' }, { mode: 'auto' });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/Read-only file system/);
    expect(r.output).toContain('note: This failure looks like Clamp\'s sandbox at work, not a bug in the command: the sandbox lets a command write only inside the workspace');
    expect(r.meta).toMatchObject({ sandbox: { level: 'workspace-write', network: false }, sandboxBlamed: true });
    expect(ws.read('inside.txt')).toBe('x\n');
    expect(fs.existsSync(outside)).toBe(false);
  });

  it('debug mode runs commands read-only', async () => {
    const h = harness([runCommandTool], ws);
    const r = await h.call('run_command', { command: 'echo x > f.txt' }, { mode: 'debug' });
    expect(r.status).toBe('error');
    expect(r.output).toContain('the sandbox is read-only in this mode');
    expect(fs.existsSync(path.join(ws.workspace, 'f.txt'))).toBe(false);
  });

  it('no network: refused with the note; "network" escalation asks, tier 2, and once approved reaches it', async () => {
    const h = harness([runCommandTool], ws);
    const cmd = `curl -sS -m 5 http://127.0.0.1:${loopback.port}/`;
    const r = await h.call('run_command', { command: cmd }, { mode: 'auto' });
    expect(r.output).toContain('the sandbox has no network');
    expect(loopback.hits).toBe(0);
    const asked = await h.call('run_command', { command: cmd, sandbox: 'network', sandbox_reason: 'fetch the test fixture' }, { mode: 'default' }, {});
    expect(asked.status).toBe('approval-required');
    expect(asked.meta?.policy).toMatchObject({ action: 'ask', tier: 2 });
    expect(String((asked.meta?.policy as PolicyDecision).reason)).toMatch(/^asks to run with network access \(the rest of the sandbox stays\), because: fetch the test fixture/);
    expect(loopback.hits).toBe(0);
    const ran = await h.call('run_command', { command: cmd, sandbox: 'network', sandbox_reason: 'fetch the test fixture' }, { mode: 'default' });
    expect(ran.status).toBe('ok');
    expect(ran.output).toContain('note: it ran with network access (approved by the person for this command only).');
    expect(loopback.hits).toBe(1);
  });

  it('auto mode never escalates without a saved rule; a rule for the plain command does not cover the escalation', async () => {
    const h = harness([runCommandTool], ws);
    const cmd = `curl -sS -m 5 http://127.0.0.1:${loopback.port}/`;
    const plainRule = await h.call('run_command', { command: cmd, sandbox: 'off', sandbox_reason: 'x' }, { mode: 'auto' }, { approver: rules(['curl', `=${cmd}`]) });
    expect(plainRule.status).toBe('denied');
    expect(plainRule.output).toMatch(/asks to run OUTSIDE the sandbox.*auto mode refuses this unless a saved rule allows it/);
    expect(loopback.hits).toBe(0);
    const other = await h.call('run_command', { command: cmd, sandbox: 'off', sandbox_reason: 'x' }, { mode: 'auto' }, { approver: rules([`=[off] curl -sS -m 5 http://127.0.0.1:${loopback.port}/other`]) });
    expect(other.status).toBe('denied');
    const saved = await h.call('run_command', { command: cmd, sandbox: 'off', sandbox_reason: 'x' }, { mode: 'auto' }, { approver: rules([`=[off] ${cmd}`]) });
    expect(saved.status).toBe('ok');
    expect(saved.output).toContain('note: it ran outside the sandbox');
    expect(loopback.hits).toBe(1);
  });

  it('escalation "off" runs the same write outside the sandbox once approved', async () => {
    const outside = path.join(outsideDir, 'outside.txt');
    const h = harness([runCommandTool], ws);
    const r = await h.call('run_command', { command: `echo y > ${outside}`, sandbox: 'off', sandbox_reason: 'write the shared config' }, { mode: 'default' });
    expect(r.status).toBe('ok');
    expect(fs.readFileSync(outside, 'utf8')).toBe('y\n');
  });

  it('a background task runs in the sandbox too', async () => {
    const tasks = new TaskManager(ws.dataDir);
    const h = harness([runCommandTool, taskOutputTool], ws, { services: { tasks } });
    const outside = path.join(outsideDir, 'bg.txt');
    ws.write('bg.sh', `echo y > ${outside}; echo done\n`);
    const start = await h.call('run_command', { command: 'sh ./bg.sh', background: true }, { mode: 'auto' });
    expect(start.status).toBe('ok');
    let seen = '';
    for (let i = 0; i < 20 && !/status: exited/.test(seen); i++) {
      seen += (await h.call('task_output', { id: String(start.meta?.taskId), wait_ms: 2000 }, { mode: 'auto' })).output;
    }
    expect(seen).toMatch(/Read-only file system/);
    expect(seen).toMatch(/status: exited/);
    expect(fs.existsSync(outside)).toBe(false);
    await tasks.shutdown();
  });
});

describe('run_command when the sandbox cannot start', () => {
  const saved = process.env.CLAMP_BWRAP;
  beforeEach(() => {
    process.env.CLAMP_BWRAP = '/nonexistent/bwrap';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.CLAMP_BWRAP;
    else process.env.CLAMP_BWRAP = saved;
  });

  it('auto mode refuses every command, saying why and how to turn it off', async () => {
    const h = harness([runCommandTool], ws);
    const r = await h.call('run_command', { command: 'echo made > made.txt' }, { mode: 'auto' }, {});
    expect(r.status).toBe('denied');
    expect(r.output).toMatch(/bubblewrap \(bwrap\) is not installed; install it .* or turn the sandbox off explicitly with CLAMP_SANDBOX=off\. Auto mode runs no command without the sandbox/);
    expect(fs.existsSync(path.join(ws.workspace, 'made.txt'))).toBe(false);
  });

  it('other modes ask for every command, even a read-only one, and say it would run unconfined; never saved as a rule', async () => {
    const h = harness([runCommandTool], ws);
    const r = await h.call('run_command', { command: 'ls' }, { mode: 'default' }, { approver: rules(['ls', '*']) });
    expect(r.status).toBe('approval-required');
    expect(r.meta?.policy).toMatchObject({ action: 'ask', opaque: true });
    expect(String((r.meta?.policy as PolicyDecision).reason)).toMatch(/so this command would run without the sandbox/);
    const ok = await h.call('run_command', { command: 'echo hi' }, { mode: 'default' });
    expect(ok.status).toBe('ok');
    expect(ok.output).toContain('note: it ran WITHOUT the sandbox, approved by the person: bubblewrap (bwrap) is not installed');
  });

  it('CLAMP_SANDBOX=off is the explicit way to run without it', async () => {
    process.env.CLAMP_SANDBOX = 'off';
    try {
      const h = harness([runCommandTool], ws);
      const r = await h.call('run_command', { command: 'echo made > made.txt' }, { mode: 'auto' }, {});
      expect(r.status).toBe('ok');
      expect(r.meta?.sandbox).toBeNull();
    } finally {
      delete process.env.CLAMP_SANDBOX;
    }
  });
});

describe('run_command under the sandbox\'s limits', () => {
  it('a file over the size limit, a fork loop and allocation past the memory limit each end with a note naming the limit; an ordinary command gets none', async () => {
    process.env.CLAMP_SANDBOX_LIMITS = 'processes=64,memory=256m,file=1m';
    try {
      const h = harness([runCommandTool], ws);
      // scripts, so the judge sees ordinary commands and only the sandbox stands in the way
      ws.write('big.sh', 'head -c 3000000 /dev/zero > big.bin\n');
      const big = await h.call('run_command', { command: 'bash ./big.sh' }, { mode: 'auto' });
      expect(big.status).toBe('error');
      expect(big.output).toContain('note: A process of the command tried to write a file larger than the sandbox\'s limit of 1.0 MB per file, and was stopped.');
      expect(big.meta).toMatchObject({ sandboxBlamed: true });
      expect(fs.statSync(path.join(ws.workspace, 'big.bin')).size).toBeLessThanOrEqual(1024 * 1024);
      ws.write('fork.sh', 'while :; do sleep 30 & done\n');
      const fork = await h.call('run_command', { command: 'bash ./fork.sh', timeout_ms: 60_000 }, { mode: 'auto' });
      expect(fork.status).toBe('error');
      expect(fork.output).toMatch(/the sandbox's limit of 64 processes \(threads count\)/);
      ws.write('mem.sh', 'echo {1..999999999} > /dev/null\n');
      const mem = await h.call('run_command', { command: 'bash ./mem.sh' }, { mode: 'auto' });
      expect(mem.output).toMatch(/the sandbox's memory limit of 256\.0 MB/);
      const plain = await h.call('run_command', { command: 'echo fine' }, { mode: 'auto' });
      expect(plain.output).not.toContain('note:');
    } finally {
      delete process.env.CLAMP_SANDBOX_LIMITS;
    }
  }, 120_000);
});
