import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpView, patchMcpServer, removeMcpServer, saveMcpServer } from '../../lib/server/mcp';
import { getMcpHub } from '../../lib/mcp/hub';
import { openDb } from '../../lib/store/db';
import { HttpError } from '../../lib/server/http';
import { readSecrets, writeSecrets } from '../../lib/store/secrets';
import { tempWorkspace } from '../helpers';
import { FIXTURE } from './hub-bed';

describe("the settings page's servers (lib/server/mcp.ts)", () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let cfg: { workspace: string; dataDir: string; mode: 'default' };
  beforeAll(() => {
    ws = tempWorkspace('clamp-mcp-settings-');
    cfg = { workspace: ws.workspace, dataDir: ws.dataDir, mode: 'default' };
  });
  afterAll(async () => {
    await getMcpHub(ws.dataDir, ws.workspace).shutdown();
    ws.cleanup();
  });

  it('adds a server: it starts, env values go to the 0600 secrets file and never to the database', async () => {
    const v = await saveMcpServer(cfg, { name: 'mine', command: process.execPath, args: [FIXTURE], env: { FIXTURE_TOKEN: 'sekret-123' } });
    const s = v.servers.find((x) => x.name === 'mine')!;
    expect(s).toMatchObject({ source: 'settings', status: 'running', envNames: ['FIXTURE_TOKEN'] });
    expect(s.tokens).toBeGreaterThan(0);
    expect(JSON.stringify(v)).not.toContain('sekret-123');
    const secrets = path.join(ws.dataDir, 'secrets.json');
    expect(fs.readFileSync(secrets, 'utf8')).toContain('sekret-123');
    expect(fs.statSync(secrets).mode & 0o777).toBe(0o600);
    const rows = openDb(ws.dataDir).prepare("SELECT json FROM settings WHERE key LIKE 'mcp.%'").all() as { json: string }[];
    expect(rows.map((r) => r.json).join('\n')).not.toContain('sekret-123');
    // saving an API key keeps the servers' secrets, and the other way round
    writeSecrets(ws.dataDir, { openai: 'sk-test' });
    expect(fs.readFileSync(secrets, 'utf8')).toContain('sekret-123');
    expect(readSecrets(ws.dataDir)).toEqual({ openai: 'sk-test' });
  });

  it("disables one tool, denies another; the page's answer says so", async () => {
    let v = await patchMcpServer(cfg, 'mine', { tool: { name: 'hang', enabled: false } });
    expect(v.servers[0].tools.find((t) => t.name === 'hang')).toMatchObject({ state: 'disabled', tokens: 0 });
    expect(getMcpHub(ws.dataDir, ws.workspace).tools().map((t) => t.name)).not.toContain('mcp__mine__hang');
    v = await patchMcpServer(cfg, 'mine', { tool: { name: 'shout', policy: 'deny' } });
    expect(v.servers[0].tools.find((t) => t.name === 'shout')!.policy).toBe('deny');
    v = await patchMcpServer(cfg, 'mine', { tool: { name: 'big', trustReadOnly: false } });
    expect(v.servers[0].tools.find((t) => t.name === 'big')!.effect).toBe('system');
  });

  it('refuses what cannot work, with the fix', async () => {
    await expect(saveMcpServer(cfg, { name: 'bad name!', command: 'x' })).rejects.toThrow(/not a usable server name/);
    await expect(saveMcpServer(cfg, { name: 'nothing' })).rejects.toThrow(/needs either \{"command"/);
    await expect(patchMcpServer(cfg, 'nope', { enabled: false })).rejects.toBeInstanceOf(HttpError);
    await expect(patchMcpServer(cfg, 'mine', { approve: true })).rejects.toThrow(/only a workspace's .mcp.json servers need approval/);
  });

  it('disables and removes a server (its secrets go with it)', async () => {
    let v = await patchMcpServer(cfg, 'mine', { enabled: false });
    expect(v.servers[0].status).toBe('disabled');
    expect(getMcpHub(ws.dataDir, ws.workspace).tools()).toEqual([]);
    v = await removeMcpServer(cfg, 'mine');
    expect(v.servers).toEqual([]);
    expect(fs.readFileSync(path.join(ws.dataDir, 'secrets.json'), 'utf8')).not.toContain('sekret-123');
    expect(mcpView(cfg).servers).toEqual([]);
  });
});

describe('images in tool results', () => {
  it('go to vision models on providers whose tool results carry images, never as text to Chat Completions', async () => {
    const { modelTakesImages } = await import('../../lib/server/mcp');
    const vision = { accepted: true, source: 'test' } as never;
    const blind = { accepted: false, source: 'test' } as never;
    expect(modelTakesImages({ provider: 'anthropic', imageInput: vision })).toBe(true);
    expect(modelTakesImages({ provider: 'openai', imageInput: vision })).toBe(true);
    expect(modelTakesImages({ provider: 'openai', imageInput: blind })).toBe(false);
    expect(modelTakesImages({ provider: 'openai-compatible', imageInput: vision })).toBe(false);
    expect(modelTakesImages({ provider: 'ollama', imageInput: vision })).toBe(false);
  });
});
