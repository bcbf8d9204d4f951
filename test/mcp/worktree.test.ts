import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelStatus } from '../../lib/contract/protocol';
import { closeMcpHubs, getMcpHub } from '../../lib/mcp/hub';
import { approveServer } from '../../lib/mcp/store';
import { openDb } from '../../lib/store/db';
import { createSession } from '../../lib/store/sessions';
import type { ServerConfig } from '../../lib/server/http';
import { turnTools } from '../../lib/server/mcp';
import { finishWorktree, requestWorktree, sessionPlace } from '../../lib/server/worktrees';
import { createContext } from '../../lib/dispatch/context';
import { dispatch } from '../../lib/dispatch/dispatch';
import { tempWorkspace } from '../helpers';
import { readChunks } from '../server/harness';
import { handleChat } from '../../lib/server/chat';
import { closeDb } from '../../lib/store/db';
import { FIXTURE, until } from './hub-bed';

/** A repository's approved .mcp.json server, for a session on its own worktree and for one in the main checkout. */

const MARK = 'mcp-cwd.txt';
// the server writes its working folder into a file there (a relative path), then serves the fixture's tools
const script = `require('fs').writeFileSync(${JSON.stringify(MARK)}, process.cwd()); import(${JSON.stringify(FIXTURE)})`;
const server = { command: process.execPath, args: ['-e', script] };
const status: ModelStatus = { configured: true, provider: 'anthropic', model: 'claude-sonnet-4-5', label: 'anthropic · claude-sonnet-4-5', windowTokens: 200_000, windowSource: { kind: 'catalogue', detail: 'test' }, scripted: false };

let ws: ReturnType<typeof tempWorkspace>;
let cfg: ServerConfig;
const folders: string[] = [];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
}

/** The MCP part of a turn of the session, as startSessionTurn asks for it: in the folder the session works in, under the workspace's approvals. */
async function turnOf(id: string) {
  const here = sessionPlace(cfg, openDb(cfg.dataDir), id);
  folders.push(here.workspace);
  const t = await turnTools(here, { sessionId: id, status, mode: () => 'default', home: cfg.workspace });
  // a call of the server's tool in the session's folder (it starts the server if the tools were known from before)
  const shout = async (word: string) => {
    const ctx = createContext({ workspace: here.workspace, dataDir: cfg.dataDir, mode: 'default', sessionId: id, services: { ...t.services } });
    return (await dispatch(t.reg, 'mcp__repo__shout', { word }, ctx, { approver: { approved: true } })).output;
  };
  return { here: here.workspace, names: Object.keys(t.reg).filter((n) => n.startsWith('mcp__')), hub: getMcpHub(cfg.dataDir, here.workspace, process.env, cfg.workspace), shout };
}

/** A turn of the session through the chat route, its stand-in model calling the server's tool once; the tool's output. */
async function chatTurn(id: string, word: string): Promise<{ output: unknown }> {
  const file = path.join(ws.root, `script-${word}.json`);
  fs.writeFileSync(file, JSON.stringify([{ toolCalls: [{ name: 'mcp__repo__shout', args: { word }, id: `c-${word}` }] }, { text: 'Done.' }]));
  process.env.CLAMP_MODEL = `scripted:${file}`;
  const res = await handleChat(cfg, { sessionId: id, message: { id: `u-${word}`, text: `shout ${word}` } }, new AbortController().signal);
  expect(res.status).toBe(200);
  const chunks = await readChunks(res);
  const out = chunks.find((c) => c.type === 'tool-output-available');
  expect(out, JSON.stringify(chunks.filter((c) => String(c.type).startsWith('tool') || c.type === 'error'))).toBeDefined();
  return { output: (out!.output as { output?: unknown }).output };
}

async function worktreeSession(name: string): Promise<{ id: string; folder: string }> {
  const id = createSession(openDb(cfg.dataDir), { workspace: cfg.workspace, mode: 'auto' }, 'default').id;
  const w = await requestWorktree(cfg, id, { name });
  return { id, folder: w.path! };
}

beforeEach(() => {
  ws = tempWorkspace('clamp-mcp-wt-');
  cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  git(ws.workspace, 'init', '-q', '-b', 'main');
  ws.write('.gitignore', `${MARK}\n`);
  ws.write('.mcp.json', JSON.stringify({ mcpServers: { repo: server } }));
  git(ws.workspace, 'add', '-A');
  git(ws.workspace, 'commit', '-q', '-m', 'first');
  // the person approves the repository's server once, in its workspace
  approveServer(openDb(cfg.dataDir), cfg.workspace, getMcpHub(cfg.dataDir, cfg.workspace).configured()[0]);
  folders.push(cfg.workspace);
});

const savedEnv = { ...process.env };
afterEach(async () => {
  for (const f of folders.splice(0)) await closeMcpHubs(cfg.dataDir, f);
  closeDb(cfg.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

describe("MCP servers of a session on its own worktree", () => {
  it("start in the worktree's folder in a turn (the main checkout untouched); the main session's still start in the main checkout", async () => {
    const wt = await worktreeSession('feature');
    const tree = await chatTurn(wt.id, 'tree');
    expect(tree.output).toBe('TREE');
    expect(fs.readFileSync(path.join(wt.folder, MARK), 'utf8')).toBe(wt.folder);
    expect(fs.existsSync(path.join(cfg.workspace, MARK))).toBe(false);
    folders.push(wt.folder);
    expect(getMcpHub(cfg.dataDir, wt.folder, process.env, cfg.workspace).states()).toMatchObject([{ name: 'repo', status: 'running', approved: true }]);

    const main = createSession(openDb(cfg.dataDir), { workspace: cfg.workspace, mode: 'auto' }, 'default').id;
    expect((await chatTurn(main, 'main')).output).toBe('MAIN');
    expect(fs.readFileSync(path.join(cfg.workspace, MARK), 'utf8')).toBe(cfg.workspace);
    expect(fs.readFileSync(path.join(wt.folder, MARK), 'utf8')).toBe(wt.folder);
  }, 60_000);

  it('a worktree whose .mcp.json differs from the approved definition waits for approval and starts nothing', async () => {
    const wt = await worktreeSession('changed');
    fs.writeFileSync(path.join(wt.folder, '.mcp.json'), JSON.stringify({ mcpServers: { repo: { ...server, args: [...server.args, '--changed'] } } }));
    const t = await turnOf(wt.id);
    expect(t.hub.states()).toMatchObject([{ name: 'repo', status: 'needs-approval', approved: false }]);
    expect(t.names).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.existsSync(path.join(wt.folder, MARK))).toBe(false);
    expect(fs.existsSync(path.join(cfg.workspace, MARK))).toBe(false);
  }, 60_000);

  it('stops the worktree\'s servers when the worktree is discarded', async () => {
    const wt = await worktreeSession('gone');
    const t = await turnOf(wt.id);
    const rt = t.hub.runtime('repo')!;
    expect(rt.status).toBe('running');
    await finishWorktree(cfg, wt.id, { action: 'discard', confirm: true }, false);
    await until(() => rt.status === 'stopped', 10_000, 'the server stopped');
    expect(fs.existsSync(wt.folder)).toBe(false);
    expect(getMcpHub(cfg.dataDir, wt.folder, process.env, cfg.workspace)).not.toBe(t.hub);
  }, 60_000);
});
