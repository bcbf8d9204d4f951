import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommandTool } from '../../lib/tools/commands/run-command';
import { harness, tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

describe('run_command goes through command safety before anything runs', () => {
  it('runs a read-only command without asking in default mode', async () => {
    ws.write('a.txt', 'hi\n');
    const h = harness([runCommandTool], ws);
    const r = await h.call('run_command', { command: 'cat a.txt | wc -l' }, {}, {});
    expect(r.status).toBe('ok');
    expect(r.output).toMatch(/^exit code 0/);
  });
  it('asks for an ordinary command unless approved, with its rule key', async () => {
    const h = harness([runCommandTool], ws);
    const r = await h.call('run_command', { command: 'touch made.txt' }, {}, {});
    expect(r.status).toBe('approval-required');
    expect(r.meta?.policy).toMatchObject({ action: 'ask', ruleKey: 'touch' });
    expect(fs.existsSync(`${ws.workspace}/made.txt`)).toBe(false);
  });
  it('refuses a catastrophic command in every mode, approved or not, with the reason', async () => {
    const h = harness([runCommandTool], ws);
    for (const mode of ['default', 'accept-edits', 'auto', 'debug'] as const) {
      const r = await h.call('run_command', { command: 'echo ok && rm -rf /' }, { mode }, { approver: { approved: true } });
      expect(r.status, mode).toBe('denied');
      expect(r.output).toMatch(/^Blocked by Clamp's safety policy: .*This is never allowed\. Do not retry it or work around it/);
    }
  });
  it('denies a dangerous command in auto mode unless a rule allows it, and asks in default mode', async () => {
    const h = harness([runCommandTool], ws);
    const auto = await h.call('run_command', { command: 'git push --force origin main' }, { mode: 'auto' }, {});
    expect(auto.status).toBe('denied');
    expect(auto.output).toMatch(/auto mode refuses this unless a saved rule allows it/);
    const def = await h.call('run_command', { command: 'git push --force origin main' }, { mode: 'default' }, {});
    expect(def.status).toBe('approval-required');
    expect(def.meta?.policy).toMatchObject({ tier: 2 });
    const ordinary = await h.call('run_command', { command: 'echo made > made.txt' }, { mode: 'auto' }, {});
    expect(ordinary.status).toBe('ok');
  });
});
