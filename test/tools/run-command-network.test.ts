import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyDecision } from '../../lib/contract/types';
import { verdictFromRules } from '../../lib/store/rules';
import { runCommandTool } from '../../lib/tools/commands/run-command';
import { taskOutputTool } from '../../lib/tools/commands/task-output';
import { taskListTool } from '../../lib/tools/commands/task-list';
import { SANDBOX_HOSTS, type SandboxHostsService } from '../../lib/tools/commands/net-join';
import { TaskManager } from '../../lib/tasks/manager';
import { stopSandboxNets } from '../../lib/exec/sandbox-net';
import { egressNote } from '../../lib/exec/egress-note';
import { harness, tempWorkspace } from '../helpers';

/**
 * run_command and the sandbox's network through the real dispatch: what the model reads of a refused host
 * (named, with allow_hosts as the next step), allow_hosts asked as an escalation (a person or a saved rule for
 * exactly it, never auto mode alone) and remembered for the session once approved, and a background server's
 * port in task_output and task_list.
 */

let ws: ReturnType<typeof tempWorkspace>;
let granted: string[] = [];
const hosts: SandboxHostsService = { key: 'rcn-session', list: () => [...granted], grant: (h) => granted.push(...h) };
beforeEach(() => {
  ws = tempWorkspace('clamp-rcn-');
  granted = [];
});
afterEach(() => ws.cleanup());
afterAll(() => stopSandboxNets());

const rules = (allow: string[]) => ({
  rule: (_t: unknown, _i: unknown, d: PolicyDecision) => verdictFromRules(allow.map((pattern) => ({ pattern, action: 'allow' as const })), d.subRuleKeys ?? [], !!d.opaque),
});

describe('run_command and the sandbox\'s network', () => {
  it('a refused host is named with the next step; allow_hosts asks, and once approved the host stays allowed for the session', async () => {
    const h = harness([runCommandTool], ws, { services: { [SANDBOX_HOSTS]: hosts } });
    const cmd = 'curl -sS -m 5 -o /dev/null https://packages.example.org/pkg';
    const refused = await h.call('run_command', { command: cmd }, { mode: 'auto' });
    expect(refused.status).toBe('error');
    expect(refused.output).toContain(
      'note: The sandbox\'s proxy refused packages.example.org: not on the allowed hosts. If the task needs it, call run_command again with the same command, allow_hosts: ["packages.example.org"] and a sandbox_reason saying why; the person is asked to allow them for this session. Do not try to get around the proxy.',
    );
    expect(refused.meta).toMatchObject({ proxyRefused: ['packages.example.org'], sandboxBlamed: true });

    const asked = await h.call('run_command', { command: cmd, allow_hosts: ['packages.example.org'], sandbox_reason: 'fetch the package' }, { mode: 'default' }, {});
    expect(asked.status).toBe('approval-required');
    const policy = asked.meta?.policy as PolicyDecision;
    expect(policy).toMatchObject({ action: 'ask', tier: 2, ruleKey: `=[hosts packages.example.org] ${cmd}` });
    expect(policy.reason).toMatch(/^asks to reach packages\.example\.org through the sandbox's proxy, for the rest of this session, because: fetch the package/);

    // approved (the harness approves): granted for the session, then the proxy lets it through (here it resolves nowhere)
    const ran = await h.call('run_command', { command: cmd, allow_hosts: ['packages.example.org'], sandbox_reason: 'fetch the package' }, { mode: 'default' });
    expect(ran.output).toContain("note: the sandbox's proxy allows packages.example.org for the rest of this session (approved by the person).");
    expect(granted).toEqual(['packages.example.org']);
    expect(ran.output).not.toContain('not on the allowed hosts');
    expect(ran.output).toContain('The sandbox\'s proxy could not reach packages.example.org: its name does not resolve on this machine');
    // asked again for a host the session has: nothing to ask
    const again = await h.call('run_command', { command: 'true', allow_hosts: ['packages.example.org'] }, { mode: 'auto' });
    expect(again.status).toBe('ok');
  });

  it('auto mode never allows a host alone; a saved rule for exactly that escalation does', async () => {
    const h = harness([runCommandTool], ws, { services: { [SANDBOX_HOSTS]: hosts } });
    const args = { command: 'true', allow_hosts: ['*.example.net'], sandbox_reason: 'x' };
    const denied = await h.call('run_command', args, { mode: 'auto' }, { approver: rules(['true']) });
    expect(denied.status).toBe('denied');
    expect(granted).toEqual([]);
    const saved = await h.call('run_command', args, { mode: 'auto' }, { approver: rules(['[hosts *.example.net] true']) });
    expect(saved.status).toBe('ok');
    expect(granted).toEqual(['*.example.net']);
  });

  it('an allow_hosts entry that is not a host is refused before anything runs, saying what a host looks like', async () => {
    const h = harness([runCommandTool], ws, { services: { [SANDBOX_HOSTS]: hosts } });
    const r = await h.call('run_command', { command: 'true', allow_hosts: ['https://packages.example.org/simple'] }, { mode: 'auto' });
    expect(r.output).toContain('"https://packages.example.org/simple" is not a host: pass a host name (packages.example.org), *.name for every name below it, or an IP address, optionally with :port');
  });

  it('a background server\'s port is in task_output and task_list, with the address to open', { timeout: 60_000 }, async () => {
    const tasks = new TaskManager(ws.dataDir);
    const h = harness([runCommandTool, taskOutputTool, taskListTool], ws, { services: { tasks, [SANDBOX_HOSTS]: hosts } });
    const start = await h.call('run_command', { command: 'python3 -m http.server 0 --bind 127.0.0.1', background: true }, { mode: 'auto' });
    expect(start.status).toBe('ok');
    const id = String(start.meta?.taskId);
    let out = '';
    for (let i = 0; i < 30 && !/listening:/.test(out); i++) out = (await h.call('task_output', { id, wait_ms: 500 }, { mode: 'auto' })).output;
    const m = /listening: (\d+) \(on this machine: (http:\/\/127\.0\.0\.1:(\d+)\/)\); from other commands of this session: localhost:<port>/.exec(out);
    expect(m, out).not.toBeNull();
    expect((await fetch(m![2]!)).status).toBe(200);
    expect((await h.call('task_list', {}, { mode: 'auto' })).output).toContain(`listening: ${m![1]} (${m![2]})`);
    await tasks.shutdown();
  });
});

describe('the refusal note', () => {
  it('names each host once, lists at most the budget\'s number, and words what could not be reached', () => {
    const e = (host: string, reason: 'not-allowed' | 'local' | 'unreachable', detail = 'not on the allowed hosts') => ({ host, port: 443, reason, detail, at: 0 });
    const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((x) => e(`${x}.example.org`, 'not-allowed'));
    const note = egressNote([...many, many[0]!, e('10.0.0.1', 'unreachable', 'the connection failed (ECONNREFUSED)')], 5)!;
    expect(note).toContain("The sandbox's proxy refused a.example.org, b.example.org, c.example.org, d.example.org, e.example.org and 2 more: not on the allowed hosts.");
    expect(note).toContain('allow_hosts: ["a.example.org","b.example.org","c.example.org","d.example.org","e.example.org"]');
    expect(note).toContain("The sandbox's proxy could not reach 10.0.0.1: the connection failed (ECONNREFUSED).");
    expect(egressNote([])).toBeUndefined();
  });
});
