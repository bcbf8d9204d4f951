import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as workspacesRoute from '../../app/api/workspaces/route';
import * as sessionsRoute from '../../app/api/sessions/route';
import * as sessionRoute from '../../app/api/sessions/[id]/route';
import * as chatRoute from '../../app/api/chat/route';
import * as approvalRoute from '../../app/api/sessions/[id]/approvals/[toolCallId]/route';
import * as rulesRoute from '../../app/api/rules/route';
import * as memoriesRoute from '../../app/api/memories/route';
import * as statusRoute from '../../app/api/status/route';
import * as boardRoute from '../../app/api/board/route';
import { WORKSPACE_HEADER } from '../../lib/contract/workspace';
import { closeDb, openDb } from '../../lib/store/db';
import { loadMessages } from '../../lib/store/messages';
import { readChunks } from '../server/harness';
import { tempWorkspace } from '../helpers';

/** One server, two workspaces: each session works, keeps its rules and memories, and is confined in its own folder. */

let a: ReturnType<typeof tempWorkspace>;
let b: ReturnType<typeof tempWorkspace>;
const saved = { ...process.env };

beforeEach(() => {
  a = tempWorkspace('clamp-ws-a-');
  b = tempWorkspace('clamp-ws-b-');
  a.write('only-a.txt', 'secret of A\n');
  b.write('only-b.txt', 'text of B\n');
  process.env.CLAMP_WORKSPACE = a.workspace;
  process.env.CLAMP_DATA_DIR = a.dataDir;
  delete process.env.CLAMP_MODE;
});
afterEach(() => {
  closeDb(a.dataDir);
  a.cleanup();
  b.cleanup();
  process.env = { ...saved };
});

const req = (p: string, method = 'GET', body?: object, headers: Record<string, string> = {}) =>
  new Request(`http://127.0.0.1/api${p}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
const inB = { [WORKSPACE_HEADER]: '' };
const params = (p: Record<string, string>) => ({ params: Promise.resolve(p) });
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read field by field in the assertions
type Answer = Record<string, any>;
async function read(res: Response): Promise<{ status: number; body: Answer }> {
  return { status: res.status, body: (await res.json()) as Answer };
}

function script(turns: object[]) {
  const file = path.join(a.root, `script-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(turns));
  process.env.CLAMP_MODEL = `scripted:${file}`;
}

async function open(p: string) {
  return read(await workspacesRoute.POST(req('/workspaces', 'POST', { path: p })));
}

async function newSession(headers: Record<string, string>, mode = 'default'): Promise<string> {
  const r = await read(await sessionsRoute.POST(req('/sessions', 'POST', { mode }, headers)));
  expect(r.status).toBe(201);
  return r.body.session.id as string;
}

async function turn(sessionId: string, text: string, headers: Record<string, string> = {}) {
  const res = await chatRoute.POST(req('/chat', 'POST', { sessionId, message: { id: `m-${Math.random()}`, text } }, headers));
  expect(res.status).toBe(200);
  return readChunks(res);
}

function toolOutputs(sessionId: string): string {
  return JSON.stringify(loadMessages(openDb(a.dataDir), sessionId));
}

describe('workspaces', () => {
  it('opens a folder after checking it, and says what is wrong with one it cannot open', async () => {
    const ok = await open(b.workspace + '/');
    expect(ok.status).toBe(200);
    expect(ok.body.workspace).toMatchObject({ path: fs.realpathSync(b.workspace), isDefault: false, sessions: 0 });
    const cases: Array<[string, RegExp]> = [
      ['project', /is not an absolute path\. Give the folder's full path/],
      [path.join(b.workspace, 'missing'), /does not exist\. Check the path/],
      [path.join(b.workspace, 'only-b.txt'), /is a file, not a folder\. Open the folder that holds it/],
      ['/', /root of the file system and cannot be a workspace/],
      [a.dataDir, /is Clamp's data dir .* cannot be a workspace/],
      [path.join(a.dataDir, 'spill'), /data dir/],
    ];
    fs.mkdirSync(path.join(a.dataDir, 'spill'), { recursive: true });
    for (const [given, error] of cases) {
      const r = await open(given);
      expect(r.status, given).toBe(400);
      expect(r.body.error, given).toMatch(error);
    }
    const list = await read(await workspacesRoute.GET(req('/workspaces')));
    expect(list.body.workspaces.map((w: { path: string; isDefault: boolean }) => [w.path, w.isDefault])).toEqual([
      [a.workspace, true],
      [fs.realpathSync(b.workspace), false],
    ]);
  });

  it('refuses a request naming a folder that was never opened', async () => {
    const r = await read(await sessionsRoute.GET(req('/sessions', 'GET', undefined, { [WORKSPACE_HEADER]: b.workspace })));
    expect(r.status).toBe(404);
    expect(r.body.error).toMatch(/is not open on this server\. Open it first/);
  });

  it("lists each workspace's sessions; a session's routes work in its own workspace whatever the request names", async () => {
    await open(b.workspace);
    inB[WORKSPACE_HEADER] = b.workspace;
    const sa = await newSession({});
    const sb = await newSession(inB);
    const listA = await read(await sessionsRoute.GET(req('/sessions')));
    const listB = await read(await sessionsRoute.GET(req(`/sessions?workspace=${encodeURIComponent(b.workspace)}`)));
    expect(listA.body.sessions.map((s: { id: string }) => s.id)).toEqual([sa]);
    expect(listB.body.sessions.map((s: { id: string }) => s.id)).toEqual([sb]);
    // B's session read with no header, and with A named: still B's
    expect((await sessionRoute.GET(req(`/sessions/${sb}`), params({ id: sb }))).status).toBe(200);
    expect((await sessionRoute.GET(req(`/sessions/${sb}`, 'GET', undefined, { [WORKSPACE_HEADER]: a.workspace }), params({ id: sb }))).status).toBe(200);
    const board = async (h: Record<string, string>) => (await read(await boardRoute.GET(req('/board', 'GET', undefined, h)))).body.sessions.map((s: { id: string }) => s.id);
    expect(await board(inB)).toEqual([sb]);
    expect(await board({})).toEqual([sa]);
    const status = await read(await statusRoute.GET(req('/status', 'GET', undefined, inB)));
    expect(status.body.workspace).toBe(b.workspace);
  });

  it("runs each session's tools in its own folder and never in the other's", async () => {
    await open(b.workspace);
    inB[WORKSPACE_HEADER] = b.workspace;
    const sa = await newSession({}, 'accept-edits');
    const sb = await newSession(inB, 'accept-edits');
    script([
      {
        toolCalls: [
          { name: 'read_file', args: { path: 'only-b.txt' }, id: 'rb' },
          { name: 'read_file', args: { path: path.join(a.workspace, 'only-a.txt') }, id: 'ra' },
          { name: 'write_file', args: { path: 'made.txt', content: 'from B\n' }, id: 'wb' },
        ],
      },
      { text: 'done in B' },
    ]);
    // the page of A sends its own header: the turn still runs in B's session's folder
    await turn(sb, 'work in B', { [WORKSPACE_HEADER]: a.workspace });
    expect(b.read('made.txt')).toBe('from B\n');
    expect(fs.existsSync(path.join(a.workspace, 'made.txt'))).toBe(false);
    const seenB = toolOutputs(sb);
    expect(seenB).toContain('text of B');
    expect(seenB).not.toContain('secret of A');
    expect(seenB).toContain('Path is outside the workspace');
    script([{ toolCalls: [{ name: 'read_file', args: { path: 'only-b.txt' }, id: 'ra2' }] }, { text: 'done in A' }]);
    await turn(sa, 'work in A');
    const seenA = toolOutputs(sa);
    expect(seenA).not.toContain('text of B');
    expect(seenA).toMatch(/not found|does not exist/i);
  });

  it('keeps rules from approvals and memories per workspace', async () => {
    await open(b.workspace);
    inB[WORKSPACE_HEADER] = b.workspace;
    const sb = await newSession(inB);
    script([
      { toolCalls: [{ name: 'memory_save', args: { text: 'B builds with make.' }, id: 'mem' }, { name: 'run_command', args: { command: 'touch ran.txt' }, id: 'cmd' }] },
      { text: 'ok' },
    ]);
    await turn(sb, 'remember and run');
    const answer = await approvalRoute.POST(req(`/sessions/${sb}/approvals/cmd`, 'POST', { answer: 'always' }), params({ id: sb, toolCallId: 'cmd' }));
    expect(answer.status).toBe(200);
    const rules = async (h: Record<string, string>) => (await read(await rulesRoute.GET(req('/rules', 'GET', undefined, h)))).body.rules as { tool: string }[];
    const memories = async (h: Record<string, string>) => JSON.stringify((await read(await memoriesRoute.GET(req('/memories', 'GET', undefined, h)))).body);
    expect((await rules(inB)).map((r) => r.tool)).toEqual(['run_command']);
    expect(await rules({})).toEqual([]);
    expect(await memories(inB)).toContain('B builds with make.');
    expect(await memories({})).not.toContain('B builds with make.');
  });
});

describe('a session of a workspace not open on this server', () => {
  it('answers 404 on its routes and its turn, and runs nothing there', async () => {
    await open(b.workspace);
    const sb = await newSession({ [WORKSPACE_HEADER]: b.workspace });
    // the same data dir, launched elsewhere, with B never opened there
    const c = tempWorkspace('clamp-ws-c-');
    try {
      process.env.CLAMP_WORKSPACE = c.workspace;
      const db = openDb(a.dataDir);
      db.prepare("UPDATE settings SET json = '{\"opened\":[]}' WHERE key = 'workspaces'").run();
      expect((await sessionRoute.GET(req(`/sessions/${sb}`), params({ id: sb }))).status).toBe(404);
      script([{ toolCalls: [{ name: 'write_file', args: { path: 'x.txt', content: 'x' }, id: 'w' }] }, { text: 'no' }]);
      const res = await chatRoute.POST(req('/chat', 'POST', { sessionId: sb, message: { id: 'm1', text: 'go' } }));
      expect(res.status).toBe(404);
      expect(fs.existsSync(path.join(b.workspace, 'x.txt'))).toBe(false);
      expect(fs.existsSync(path.join(c.workspace, 'x.txt'))).toBe(false);
    } finally {
      c.cleanup();
    }
  });
});
