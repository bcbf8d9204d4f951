import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClampMessage, SessionDetail } from '../../lib/contract/protocol';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';
import { startClamp, type RunningClamp } from '../server/harness';
import { chunksOf, killMatching, pidsMatching, readUntil, userMessage, waitNoProcess } from './net';

/**
 * Killing the server mid-turn loses no stored message and leaves no process behind;
 * stopping it (SIGTERM) stops every command and background task it started.
 * Every command sleeps for 1000.<unique digits> seconds so pgrep -f finds exactly ours.
 */
const RUN = String(Math.floor(Math.random() * 1e9));
const sleepFor = (tag: number) => `sleep 1000.${RUN}${tag}`;
// the same sleep, ignoring SIGTERM (inherited across exec): only SIGKILL after the grace stops it
const stubborn = (tag: number) => `bash ignore-term.sh 1000.${RUN}${tag}`;
// `echo ready-$((6*7))` prints ready-42: a text the command line itself does not contain
const readyText = (name: string) => `"text":"${name}-42\\n"`;

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let env: Record<string, string>;
const servers: RunningClamp[] = [];

function lastMessage(req: FakeRequest) {
  return req.body.messages[req.body.messages.length - 1];
}

function reply(req: FakeRequest): FakeReply {
  const last = lastMessage(req);
  if (last.role === 'tool') {
    if (last.tool_call_id === 'step-one') return { toolCalls: [{ name: 'run_command', args: { command: `echo ready-$((6*7)); ${sleepFor(1)}` }, id: 'step-two' }] };
    return { text: 'Tools done.' };
  }
  const text = String(last.content);
  if (text === 'go') return { text: 'First a quick one.', toolCalls: [{ name: 'run_command', args: { command: 'echo step-one-output' }, id: 'step-one' }] };
  if (text === 'slow') return { delayMs: 20_000, text: 'too late' };
  if (text === 'tasks') {
    return {
      toolCalls: [
        { name: 'run_command', args: { command: `echo bg-$((6*7)); ${sleepFor(2)}`, background: true }, id: 'bg-1' },
        // a grandchild in the task's group, and one that outlives its parent shell
        { name: 'run_command', args: { command: `(${sleepFor(3)} &); ${sleepFor(3)}`, background: true }, id: 'bg-2' },
        { name: 'run_command', args: { command: stubborn(5), background: true }, id: 'bg-3' },
      ],
    };
  }
  if (text === 'foreground') return { toolCalls: [{ name: 'run_command', args: { command: `echo fg-$((6*7)); ${stubborn(4)}` }, id: 'fg-1' }] };
  return { text: 'I am back.' };
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-crash-');
  ws.write('ignore-term.sh', 'trap "" TERM\nexec sleep "$1"\n');
  fake = await startFakeOpenAI(reply);
  env = { CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url };
}, 240_000);

afterAll(async () => {
  for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) await s.stop();
  killMatching(`1000.${RUN}`);
  await fake?.close();
  ws?.cleanup();
});

async function start(token?: string, extra: Record<string, string> = {}): Promise<RunningClamp> {
  const s = await startClamp({ ...env, ...extra }, token);
  servers.push(s);
  return s;
}

async function autoSession(clamp: RunningClamp): Promise<string> {
  const r = await clamp.api('/api/sessions', { json: { mode: 'auto' } });
  expect(r.status).toBe(201);
  return ((await r.json()) as { session: { id: string } }).session.id;
}

async function detail(clamp: RunningClamp, id: string): Promise<SessionDetail> {
  const r = await clamp.api(`/api/sessions/${id}`);
  expect(r.status).toBe(200);
  return (await r.json()) as SessionDetail;
}

function toolPart(m: ClampMessage | undefined, toolCallId: string) {
  return m?.parts.find((p) => (p as { toolCallId?: string }).toolCallId === toolCallId) as { state: string; output?: { output: string } } | undefined;
}

async function waitFor(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a crash (SIGKILL) in the middle of a turn', () => {
  it('loses no stored message, leaves no command running, and the session goes on after a restart', { timeout: 240_000 }, async () => {
    let clamp = await start();
    const a = await autoSession(clamp);
    const b = await autoSession(clamp);

    // session a: step one ran and was stored; step two's command is running when the server dies
    const chatA = await clamp.api('/api/chat', { json: userMessage(a, 'a-user-1', 'go') });
    expect(chatA.status).toBe(200);
    await readUntil(chatA, (t) => t.includes(readyText('ready')), 60_000);
    // session b: the model is still thinking when the server dies
    const asked = fake.requests.length;
    const chatB = await clamp.api('/api/chat', { json: userMessage(b, 'b-user-1', 'slow') });
    expect(chatB.status).toBe(200);
    void chatB.text().catch(() => undefined);
    await waitFor('the slow model request', () => fake.requests.slice(asked).some((r) => lastMessage(r).content === 'slow'));
    expect(pidsMatching(sleepFor(1)).length).toBeGreaterThan(0);

    const beforeA = await detail(clamp, a);
    const beforeB = await detail(clamp, b);
    expect(beforeA.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(toolPart(beforeA.messages[1], 'step-one')?.output?.output).toMatch(/step-one-output/);
    expect(beforeB.messages.map((m) => m.role)).toEqual(['user']);

    await clamp.crash();
    clamp = await start(clamp.token);

    // nothing the server had stored is lost or changed; the call that was running is written in as interrupted
    const afterA = await detail(clamp, a);
    const afterB = await detail(clamp, b);
    expect(afterA.messages[0]).toEqual(beforeA.messages[0]);
    expect(afterA.messages[1].parts.slice(0, beforeA.messages[1].parts.length)).toEqual(beforeA.messages[1].parts);
    const interrupted = toolPart(afterA.messages[1], 'step-two') as { state: string; errorText?: string } | undefined;
    expect(interrupted?.state).toBe('output-error');
    expect(interrupted?.errorText).toMatch(/^Interrupted by a restart: [\s\S]*ready-42/);
    expect(afterB.messages.slice(0, beforeB.messages.length)).toEqual(beforeB.messages);
    expect(afterA.messages[0].parts).toEqual([{ type: 'text', text: 'go' }]);
    expect(afterB.messages[0].parts).toEqual([{ type: 'text', text: 'slow' }]);

    // the command the dead server was running does not live on
    expect(await waitNoProcess(sleepFor(1), 10_000)).toEqual([]);

    // both sessions take a new turn
    for (const [id, msg] of [
      [a, 'a-user-2'],
      [b, 'b-user-2'],
    ]) {
      const r = await clamp.api('/api/chat', { json: userMessage(id, msg, 'again') });
      expect(r.status).toBe(200);
      const chunks = chunksOf(await r.text());
      expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
      expect(chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta).join('')).toBe('I am back.');
    }
    const final = await detail(clamp, a);
    expect(final.messages.slice(0, 2)).toEqual(afterA.messages.slice(0, 2));
    expect(final.messages.at(-1)?.role).toBe('assistant');
    await clamp.stop();
  });

  it('kills the commands of a crashed server even before it starts again', { timeout: 120_000 }, async () => {
    const clamp = await start();
    const a = await autoSession(clamp);
    const chat = await clamp.api('/api/chat', { json: userMessage(a, 'c-user-1', 'go') });
    await readUntil(chat, (t) => t.includes(readyText('ready')), 60_000);
    expect(pidsMatching(sleepFor(1)).length).toBeGreaterThan(0);
    await clamp.crash();
    expect(await waitNoProcess(sleepFor(1), 10_000)).toEqual([]);
  });

  it('a sandboxed command dies with a crashed server even when its watchdog died too (bwrap --die-with-parent)', { timeout: 120_000 }, async () => {
    const clamp = await start();
    const a = await autoSession(clamp);
    const chat = await clamp.api('/api/chat', { json: userMessage(a, 'd-user-1', 'go') });
    await readUntil(chat, (t) => t.includes(readyText('ready')), 60_000);
    const dogs = pidsMatching(`clamp-watchdog ${ws.dataDir}/running/${clamp.proc.pid}-`);
    expect(dogs).toHaveLength(1);
    process.kill(dogs[0], 'SIGKILL');
    expect(pidsMatching(sleepFor(1)).length).toBeGreaterThan(0);
    await clamp.crash();
    expect(await waitNoProcess(sleepFor(1), 5_000)).toEqual([]);
    // the next start finds the record of a group that is already gone and has nothing to stop
    const next = await start(clamp.token);
    expect(next.output()).not.toContain('left running by a Clamp that did not shut down');
    await next.stop();
  });

  // an unconfined command (CLAMP_SANDBOX=off) survives its server's crash: the journal is what stops it
  it('reaps at the next start what a crash left behind when its watchdog died too', { timeout: 120_000 }, async () => {
    const clamp = await start(undefined, { CLAMP_SANDBOX: 'off' });
    const a = await autoSession(clamp);
    const chat = await clamp.api('/api/chat', { json: userMessage(a, 'w-user-1', 'go') });
    await readUntil(chat, (t) => t.includes(readyText('ready')), 60_000);
    const dogs = pidsMatching(`clamp-watchdog ${ws.dataDir}/running/${clamp.proc.pid}-`);
    expect(dogs).toHaveLength(1);
    process.kill(dogs[0], 'SIGKILL');
    await clamp.crash();
    await new Promise((r) => setTimeout(r, 500));
    expect(pidsMatching(sleepFor(1)).length).toBeGreaterThan(0);
    const next = await start(clamp.token, { CLAMP_SANDBOX: 'off' });
    expect(await waitNoProcess(sleepFor(1), 5_000)).toEqual([]);
    expect(next.output()).toContain('Stopped 1 command(s) left running by a Clamp that did not shut down.');
    await next.stop();
  });
});

describe('stopping the server (SIGTERM)', () => {
  it('kills every background task and the running command, and leaves no process', { timeout: 180_000 }, async () => {
    const clamp = await start();
    const tasks = await autoSession(clamp);
    const fg = await autoSession(clamp);
    const started = await clamp.api('/api/chat', { json: userMessage(tasks, 't-user-1', 'tasks') });
    const chunks = chunksOf(await started.text());
    const outputs = chunks.filter((c) => c.type === 'tool-output-available').map((c) => c.output as { status: string; output: string });
    expect(outputs.map((o) => `${o.status}: ${o.output.split('\n')[0]}`)).toEqual([
      expect.stringMatching(/^ok: Started background task/),
      expect.stringMatching(/^ok: Started background task/),
      expect.stringMatching(/^ok: Started background task/),
    ]);
    await waitFor('three running tasks', async () => {
      const list = (await (await clamp.api('/api/tasks')).json()) as { tasks: Array<{ status: string }> };
      return list.tasks.filter((t) => t.status === 'running').length === 3;
    });
    const running = await clamp.api('/api/chat', { json: userMessage(fg, 'f-user-1', 'foreground') });
    await readUntil(running, (t) => t.includes(readyText('fg')), 60_000);
    for (const tag of [2, 3, 4, 5]) expect(pidsMatching(sleepFor(tag)).length, sleepFor(tag)).toBeGreaterThan(0);

    expect(await clamp.stop()).toBe(0);
    for (const tag of [2, 3, 4, 5]) expect(await waitNoProcess(sleepFor(tag), 5_000), sleepFor(tag)).toEqual([]);
  });

  it('stops on SIGTERM even when its stdout and stderr are gone (a closed terminal, a dead parent)', { timeout: 120_000 }, async () => {
    const clamp = await start();
    const a = await autoSession(clamp);
    const chat = await clamp.api('/api/chat', { json: userMessage(a, 'p-user-1', 'foreground') });
    await readUntil(chat, (t) => t.includes(readyText('fg')), 60_000);
    clamp.proc.stdout!.destroy();
    clamp.proc.stderr!.destroy();
    const exited = await Promise.race([clamp.stop(), new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
    if (exited === 'hung') clamp.proc.kill('SIGKILL');
    expect(exited).toBe(0);
    expect(await waitNoProcess(sleepFor(4), 5_000)).toEqual([]);
  });
});
