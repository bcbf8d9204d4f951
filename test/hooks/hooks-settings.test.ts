import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../lib/store/db';
import type { HooksView } from '../../lib/contract/hooks-rest';
import * as hooksRoute from '../../app/api/hooks/route';
import { tempWorkspace } from '../helpers';
import { fileCommands } from '../../lib/server/file-commands';
import { scanAgents } from '../../lib/tools/agents/agent-files';

/** The settings page's hooks route (GET/PUT /api/hooks) as the page calls it. */

let ws: ReturnType<typeof tempWorkspace>;
const savedEnv = { ...process.env };

beforeEach(() => {
  ws = tempWorkspace('clamp-hooks-settings-');
  process.env.CLAMP_WORKSPACE = ws.workspace;
  process.env.CLAMP_DATA_DIR = ws.dataDir;
  process.env.HOME = ws.root;
});
afterEach(() => {
  closeDb(ws.dataDir);
  process.env = { ...savedEnv };
  ws.cleanup();
});

const put = (body: unknown) => hooksRoute.PUT(new Request('http://127.0.0.1/api/hooks', { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }));
const get = async () => (await (await hooksRoute.GET(new Request('http://127.0.0.1/api/hooks'))).json()) as HooksView;

describe('GET/PUT /api/hooks', () => {
  it("saves the person's hooks file only when it parses, and says where it does not", async () => {
    const bad = await put({ personText: JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' }] }] } }) });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('Not saved: hooks.json: hooks.PreToolUse[0].hooks[0]: "command" must be the command to run (a non-empty string).');
    expect(fs.existsSync(path.join(ws.dataDir, 'hooks.json'))).toBe(false);
    const text = JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'npx prettier --write "$FILE"', timeout: 20 }] }] } });
    const ok = await put({ personText: text });
    expect(ok.status).toBe(200);
    const v = await get();
    expect(v.personText).toBe(text);
    expect(v.person.map((h) => [h.event, h.matcher, h.name, h.timeoutSeconds])).toEqual([['PostToolUse', 'Write|Edit', 'npx', 20]]);
    expect(fs.statSync(path.join(ws.dataDir, 'hooks.json')).mode & 0o777).toBe(0o600);
  });

  it("lists a workspace's hooks unapproved; approving one by its hash makes it run, a changed definition asks again", async () => {
    const def = (cmd: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: cmd }] }] }, permissions: { allow: [] } });
    ws.write('.claude/settings.json', def('./scripts/check.sh'));
    let v = await get();
    expect(v.workspace.map((h) => [h.event, h.name, h.file, h.approved])).toEqual([['Stop', 'check', '.claude/settings.json', false]]);
    const res = await put({ approve: { hash: v.workspace[0].hash, approved: true } });
    expect(res.status).toBe(200);
    v = await get();
    expect(v.workspace[0].approved).toBe(true);
    ws.write('.claude/settings.json', def('./scripts/check.sh --all'));
    v = await get();
    expect(v.workspace[0].approved).toBe(false);
    expect((await put({ approve: { hash: '0'.repeat(32), approved: true } })).status).toBe(404);
  });

  it('turns the Claude Code user settings on and reads their hooks; a file that does not parse is named with the fix', async () => {
    fs.mkdirSync(path.join(ws.root, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(ws.root, '.claude', 'settings.json'), JSON.stringify({ hooks: { Notification: [{ hooks: [{ type: 'command', command: 'notify-send Clamp' }] }], PermissionRequest: [] } }));
    expect((await get()).person).toEqual([]);
    await put({ claudeUser: true });
    const v = await get();
    expect(v.claudeUser.on).toBe(true);
    expect(v.person.map((h) => [h.event, h.name])).toEqual([['Notification', 'notify-send']]);
    expect(v.skippedEvents).toEqual(['PermissionRequest']);
    ws.write('.clamp/settings.json', '{ "hooks": ');
    expect((await get()).problems[0]).toMatch(/\.clamp\/settings\.json is not valid JSON \(.*\)\. Fix the file; its hooks are not run until it parses\.$/);
  });

  it("the switch for the person's ~/.claude/commands and ~/.claude/agents: off by default, stored, and then their files are offered", async () => {
    fs.mkdirSync(path.join(ws.root, '.claude', 'commands'), { recursive: true });
    fs.mkdirSync(path.join(ws.root, '.claude', 'agents'), { recursive: true });
    fs.writeFileSync(path.join(ws.root, '.claude', 'commands', 'mine.md'), '---\ndescription: My own command\n---\nDo my thing with $ARGUMENTS.\n');
    fs.writeFileSync(path.join(ws.root, '.claude', 'agents', 'helper.md'), '---\nname: helper\ndescription: My own agent\ntools: Read\n---\nHelp.\n');
    let v = await get();
    expect(v.claudeFiles).toEqual({ on: false, commands: path.join(ws.root, '.claude', 'commands'), agents: path.join(ws.root, '.claude', 'agents') });
    expect(fileCommands(openDb(ws.dataDir), ws.workspace, ws.dataDir).map((c) => c.name)).toEqual([]);
    expect(scanAgents(ws.workspace, ws.dataDir).agents.map((a) => a.name)).toEqual([]);
    expect((await put({ claudeFiles: true })).status).toBe(200);
    closeDb(ws.dataDir);
    v = await get();
    expect(v.claudeFiles.on).toBe(true);
    expect(fileCommands(openDb(ws.dataDir), ws.workspace, ws.dataDir).map((c) => [c.name, c.description, c.source])).toEqual([['mine', 'My own command', 'person']]);
    expect(scanAgents(ws.workspace, ws.dataDir).agents.map((a) => [a.name, a.tools, a.source])).toEqual([['helper', ['Read'], 'person']]);
    await put({ claudeFiles: false });
    expect(fileCommands(openDb(ws.dataDir), ws.workspace, ws.dataDir)).toEqual([]);
  });
});
