import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClampMessage, SessionDetail } from '../../lib/contract/protocol';
import type { BranchAnswer, BranchListAnswer, ChangesAnswer, CheckpointListAnswer, CommitChangesAnswer, RewindAnswer, RewindPreview, RewindTasksConflict } from '../../lib/contract/rest';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';
import { fileState, gitState, tempWorkspace } from '../helpers';
import { chunksOf, killMatching, readUntil, userMessage } from '../adversarial/net';
import { startClamp, type RunningClamp } from './harness';

/**
 * Checkpoints, rewind, branches, the changes view and a crash, through the real server and its routes,
 * with a stand-in OpenAI-compatible provider driving real tools.
 */
const RUN = String(Math.floor(Math.random() * 1e9));
const EDIT_COMMAND = "rm bom.txt && mkdir -p made/deep && printf 'x' > made/deep/new.txt && chmod -x run.sh && rm link && echo file > link && printf 'AB\\000' > bin.dat";

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let clamp: RunningClamp;
const servers: RunningClamp[] = [];

function last(req: FakeRequest) {
  return req.body.messages[req.body.messages.length - 1]!;
}

function reply(req: FakeRequest): FakeReply {
  const m = last(req);
  if (m.role === 'tool') {
    if (m.tool_call_id === 'bg') return { text: 'Edited.' };
    return { text: 'Done.' };
  }
  const text = String(m.content);
  if (text === 'edit') {
    return {
      text: 'Editing.',
      toolCalls: [
        { name: 'write_file', args: { path: 'crlf.txt', content: 'rewritten\n' }, id: 'w1' },
        { name: 'run_command', args: { command: EDIT_COMMAND }, id: 'c1' },
        { name: 'run_command', args: { command: `sleep 1000.${RUN}1`, background: true }, id: 'bg' },
      ],
    };
  }
  if (text === 'crash') {
    return {
      text: 'Running the slow one.',
      toolCalls: [
        { name: 'write_file', args: { path: 'crash.txt', content: 'half\n' }, id: 'k0' },
        { name: 'run_command', args: { command: `echo partial-$((6*7)); sleep 1000.${RUN}2` }, id: 'k1' },
      ],
    };
  }
  return { text: 'I see.' };
}

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: ws.workspace, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).toString();

async function getJson<T>(p: string, status = 200): Promise<T> {
  const r = await clamp.api(p);
  expect(r.status, await r.clone().text()).toBe(status);
  return (await r.json()) as T;
}

async function postJson<T>(p: string, body: unknown, status = 200): Promise<T> {
  const r = await clamp.api(p, { json: body });
  expect(r.status, await r.clone().text()).toBe(status);
  return (await r.json()) as T;
}

async function session(mode = 'auto'): Promise<string> {
  return (await postJson<{ session: { id: string } }>('/api/sessions', { mode }, 201)).session.id;
}

async function chat(id: string, msg: string, text: string) {
  const r = await clamp.api('/api/chat', { json: userMessage(id, msg, text) });
  expect(r.status).toBe(200);
  return chunksOf(await r.text());
}

beforeAll(async () => {
  ws = tempWorkspace('clamp-rewind-');
  fake = await startFakeOpenAI(reply);
  clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url });
  servers.push(clamp);
}, 240_000);

afterAll(async () => {
  for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) await s.stop();
  killMatching(`1000.${RUN}`);
  await fake?.close();
  ws?.cleanup();
});

describe('rewind through the routes', () => {
  it('restores edits and a command’s work byte for byte, keeps the conversation as a branch, and tells the model', { timeout: 240_000 }, async () => {
    git('init', '-q');
    ws.write('crlf.txt', 'one\r\ntwo\r\n');
    ws.write('bom.txt', '\uFEFFhello\n');
    ws.write('bin.dat', Buffer.from([0, 1, 2, 255, 13, 10]));
    ws.write('run.sh', '#!/bin/sh\necho hi\n');
    fs.chmodSync(path.join(ws.workspace, 'run.sh'), 0o755);
    fs.symlinkSync('crlf.txt', path.join(ws.workspace, 'link'));
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
    const before = fileState(ws.workspace);
    const personGit = gitState(ws.workspace);
    const indexMtime = fs.statSync(path.join(ws.workspace, '.git', 'index')).mtimeMs;

    const id = await session();
    expect(await getJson<ChangesAnswer>(`/api/sessions/${id}/changes`)).toEqual({ baselineId: null, files: [], truncated: false, commit: { kind: 'git', root: ws.workspace } });
    const chunks = await chat(id, 'u1', 'edit');
    expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
    // write_file keeps the file's CRLF line endings
    const edited = fs.readFileSync(path.join(ws.workspace, 'crlf.txt'), 'latin1');
    expect(edited).toBe('rewritten\r\n');
    expect(fs.existsSync(path.join(ws.workspace, 'made/deep/new.txt'))).toBe(true);

    // one checkpoint, before the turn's first change
    const { checkpoints } = await getJson<CheckpointListAnswer>(`/api/sessions/${id}/checkpoints`);
    expect(checkpoints).toHaveLength(1);
    expect(checkpoints[0]).toMatchObject({ messageId: 'u1', toolCallId: 'w1', kind: 'turn', fileCount: 5, skipped: [] });

    // the changes view: every file the session changed, by the tool and by the command
    const changes = await getJson<ChangesAnswer>(`/api/sessions/${id}/changes`);
    expect(changes.baselineId).toBe(checkpoints[0]!.id);
    expect(Object.fromEntries(changes.files.map((f) => [f.path, f.change]))).toEqual({
      'bin.dat': 'modified',
      'bom.txt': 'deleted',
      'crlf.txt': 'modified',
      link: 'type',
      'made/deep/new.txt': 'added',
      'run.sh': 'mode',
    });
    const crlf = changes.files.find((f) => f.path === 'crlf.txt')!;
    expect(crlf).toMatchObject({ additions: 1, deletions: 2, binary: false });
    expect(crlf.diff).toContain('+rewritten\r\n');
    expect(crlf.diff).toContain('-one\r\n');
    expect(changes.files.find((f) => f.path === 'bin.dat')!.binary).toBe(true);

    // the preview: current → before u1, the running task, what cannot be undone
    const preview = await getJson<RewindPreview>(`/api/sessions/${id}/rewind?messageId=u1`);
    expect(preview).toMatchObject({ messageId: 'u1', checkpointId: checkpoints[0]!.id, laterMessages: 2, truncated: false });
    expect(Object.fromEntries(preview.files.map((f) => [f.path, f.change]))).toMatchObject({ 'bom.txt': 'added', 'made/deep/new.txt': 'deleted', 'crlf.txt': 'modified' });
    expect(preview.runningTasks).toEqual([{ id: expect.any(String), command: `sleep 1000.${RUN}1` }]);
    expect(preview.cannotUndo.join(' ')).toMatch(/outside the workspace.*Network.*databases.*pushed/s);

    // a background task runs: refused until stopTasks
    const refused = await postJson<RewindTasksConflict>(`/api/sessions/${id}/rewind`, { messageId: 'u1', code: true, conversation: false }, 409);
    expect(refused.runningTasks).toHaveLength(1);
    expect(refused.error).toMatch(/stopTasks/);
    expect(fs.readFileSync(path.join(ws.workspace, 'crlf.txt'), 'latin1')).toBe(edited);

    const code = await postJson<RewindAnswer>(`/api/sessions/${id}/rewind`, { messageId: 'u1', code: true, conversation: false, stopTasks: true });
    expect(code.restored.sort()).toEqual(['bin.dat', 'bom.txt', 'crlf.txt', 'link', 'made/deep/new.txt', 'run.sh']);
    expect(code.branchId).toBeNull();
    expect(fileState(ws.workspace)).toEqual(before);
    expect(fs.existsSync(path.join(ws.workspace, 'made'))).toBe(false);
    expect(gitState(ws.workspace)).toEqual(personGit);
    expect(fs.statSync(path.join(ws.workspace, '.git', 'index')).mtimeMs).toBe(indexMtime);
    expect(code.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(code.messages[2]!.parts[0]).toMatchObject({ type: 'data-rewind', data: { code: true, conversation: false, restored: code.restored } });
    const tasks = (await getJson<{ tasks: { status: string }[] }>('/api/tasks')).tasks;
    expect(tasks.every((t) => t.status !== 'running')).toBe(true);

    // the model's next request says which files were restored (earlier reads are stale) and what a rewind cannot undo
    let asked = fake.requests.length;
    await chat(id, 'u1b', 'what now');
    let sent = JSON.stringify(fake.requests.slice(asked)[0]!.body.messages);
    expect(sent).toContain('read them again before editing: bin.dat, bom.txt, crlf.txt, link, made/deep/new.txt, run.sh');
    expect(sent).toContain('A rewind cannot undo: Effects of commands outside the workspace');

    // a conversation rewind leaves the files as they are
    ws.write('mine.txt', 'the person wrote this\n');
    const afterCode = fileState(ws.workspace);
    const conv = await postJson<RewindAnswer>(`/api/sessions/${id}/rewind`, { messageId: 'u1', code: false, conversation: true });
    expect(fileState(ws.workspace)).toEqual(afterCode);
    expect(conv.restored).toEqual([]);
    expect(conv.messages).toHaveLength(1);
    expect(conv.messages[0]!.parts[0]).toMatchObject({ type: 'data-rewind', data: { conversation: true, branchId: conv.branchId } });
    const detail = await getJson<SessionDetail>(`/api/sessions/${id}`);
    expect(detail.messages).toEqual(conv.messages);

    // the branch stays readable
    const { branches } = await getJson<BranchListAnswer>(`/api/sessions/${id}/branches`);
    expect(branches).toEqual([{ id: conv.branchId, createdAt: expect.any(Number), fromMessageId: 'u1', messageCount: 5, preview: 'edit' }]);
    const branch = await getJson<BranchAnswer>(`/api/sessions/${id}/branches/${conv.branchId}`);
    expect(branch.messages.map((m: ClampMessage) => m.id)[0]).toBe('u1');
    expect(JSON.stringify(branch.messages)).toContain('rewritten');
    await getJson(`/api/sessions/${id}/branches/nope`, 404);
    await getJson(`/api/sessions/${id}/rewind?messageId=u1`, 404);

    // … and after a conversation rewind, that the later messages are gone and the files were left as they are
    asked = fake.requests.length;
    await chat(id, 'u2', 'and now');
    sent = JSON.stringify(fake.requests.slice(asked)[0]!.body.messages);
    expect(sent).toContain('taken out of this conversation');
    expect(sent).toContain('The files were not restored');
    expect(sent).not.toContain('rewritten');
    expect(sent).not.toContain('what now');

    // the rewind itself can be undone: its checkpoint holds the edited files
    const undo = await postJson<RewindAnswer>(`/api/sessions/${id}/rewind`, { checkpointId: code.undoCheckpointId, code: true, conversation: false });
    expect(undo.restored).toContain('crlf.txt');
    expect(fs.readFileSync(path.join(ws.workspace, 'crlf.txt'), 'latin1')).toBe(edited);
    // a file written since is not in that checkpoint, so it goes; the undo's own checkpoint still holds it
    expect(undo.restored).toContain('mine.txt');
    expect(fs.existsSync(path.join(ws.workspace, 'mine.txt'))).toBe(false);
    const { checkpoints: all } = await getJson<CheckpointListAnswer>(`/api/sessions/${id}/checkpoints`);
    expect(all.map((c) => c.kind)).toEqual(['turn', 'rewind', 'rewind']);
    ws.write('mine.txt', 'the person wrote this\n');

    // per-file revert: back to the session's start; a file the session created is removed
    expect(await postJson(`/api/sessions/${id}/changes/revert`, { path: 'crlf.txt' })).toEqual({ reverted: 'crlf.txt' });
    expect(fs.readFileSync(path.join(ws.workspace, 'crlf.txt'), 'latin1')).toBe('one\r\ntwo\r\n');
    expect(await postJson(`/api/sessions/${id}/changes/revert`, { path: 'made/deep/new.txt' })).toEqual({ reverted: 'made/deep/new.txt' });
    expect(fs.existsSync(path.join(ws.workspace, 'made'))).toBe(false);
    const bad = await postJson<{ error: string }>(`/api/sessions/${id}/changes/revert`, { path: 'run.sh/../../etc/passwd' }, 400);
    expect(bad.error).toMatch(/not a path inside the workspace/);
    const unchanged = await postJson<{ error: string }>(`/api/sessions/${id}/changes/revert`, { path: 'crlf.txt' }, 400);
    expect(unchanged.error).toMatch(/nothing to revert/);
    const left = await getJson<ChangesAnswer>(`/api/sessions/${id}/changes`);
    expect(left.files.map((f) => f.path).sort()).toEqual(['bin.dat', 'bom.txt', 'link', 'mine.txt', 'run.sh']);

    // commit these: exactly the paths given, through git_commit
    const done = await postJson<CommitChangesAnswer>(`/api/sessions/${id}/changes/commit`, { paths: ['mine.txt', 'bom.txt'], message: 'Keep mine' });
    expect(done.ok, done.text).toBe(true);
    expect(done.text).toMatch(/^Committed [0-9a-f]+ on \S+: Keep mine/);
    expect(git('show', '--name-status', '--format=%s', 'HEAD').trim().split('\n').filter(Boolean)).toEqual(['Keep mine', 'D\tbom.txt', 'A\tmine.txt']);
    expect(git('status', '--porcelain').trimEnd().split('\n').sort()).toEqual([' M bin.dat', ' M run.sh', ' T link'].sort());

    // plan mode refuses, and the refusal is the answer's text
    const planned = await session('plan');
    const no = await postJson<CommitChangesAnswer>(`/api/sessions/${planned}/changes/commit`, { paths: ['bin.dat'], message: 'x' });
    expect(no.ok).toBe(false);
    expect(no.text).toMatch(/git_commit is not available/);
  });
});

describe('a crash in the middle of a command', () => {
  it('shows the call as interrupted with its partial output, offers its checkpoint and tells the model', { timeout: 240_000 }, async () => {
    const id = await session();
    const res = await clamp.api('/api/chat', { json: userMessage(id, 'k-user', 'crash') });
    expect(res.status).toBe(200);
    await readUntil(res, (t) => t.includes('partial-42'), 60_000);
    await clamp.crash();
    clamp = await startClamp({ CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url }, clamp.token);
    servers.push(clamp);
    expect(clamp.output()).toMatch(/1 tool call\(s\) were interrupted by the restart/);

    const detail = await getJson<SessionDetail>(`/api/sessions/${id}`);
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const parts = detail.messages[1]!.parts as Array<{ type: string; toolCallId?: string; state?: string; errorText?: string; text?: string; data?: Record<string, unknown> }>;
    expect(parts.find((p) => p.type === 'text')?.text).toBe('Running the slow one.');
    expect(parts.find((p) => p.toolCallId === 'k0')?.state).toBe('output-available');
    const k1 = parts.find((p) => p.toolCallId === 'k1' && p.type === 'tool-run_command')!;
    expect(k1.state).toBe('output-error');
    expect(k1.errorText).toMatch(/^Interrupted by a restart: /);
    expect(k1.errorText).toContain('partial-42');
    const { checkpoints } = await getJson<CheckpointListAnswer>(`/api/sessions/${id}/checkpoints`);
    expect(checkpoints.map((c) => [c.messageId, c.toolCallId])).toEqual([['k-user', 'k0']]);
    expect(parts.find((p) => p.type === 'data-interrupted')?.data).toMatchObject({ toolCallId: 'k1', userMessageId: 'k-user', checkpointId: checkpoints[0]!.id });
    // the offered checkpoint is the files before the turn: crash.txt did not exist
    const preview = await getJson<RewindPreview>(`/api/sessions/${id}/rewind?messageId=k-user`);
    expect(preview.files.map((f) => [f.path, f.change])).toContainEqual(['crash.txt', 'deleted']);

    const asked = fake.requests.length;
    const chunks = await chat(id, 'k-user-2', 'again');
    expect(chunks.at(-1)).toMatchObject({ type: 'finish' });
    const toolMsg = fake.requests.slice(asked)[0]!.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'k1');
    expect(JSON.stringify(toolMsg?.content)).toContain('Interrupted by a restart');
    expect(JSON.stringify(toolMsg?.content)).toContain('partial-42');
  });
});
