import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE, hubBed } from './hub-bed';
import { approveServer } from '../../lib/mcp/store';
import { openDb } from '../../lib/store/db';

/** A workspace .mcp.json server that leaves a mark when it is started. */
function marking(marker: string) {
  const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); import(${JSON.stringify(FIXTURE)})`;
  return { command: process.execPath, args: ['-e', script] };
}

describe("a workspace's .mcp.json", () => {
  let bed: ReturnType<typeof hubBed> | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  it('never starts a server before the person approves it; once approved it starts; a changed definition asks again', async () => {
    const ws0 = { marker: '' };
    bed = hubBed({}, { workspaceServers: {} });
    // inside the workspace: a repository's server runs in the sandbox, which lets it write only there
    ws0.marker = path.join(bed.ws.workspace, 'started');
    bed.ws.write('.mcp.json', JSON.stringify({ mcpServers: { repo: marking(ws0.marker) } }));
    bed.hub.reload();
    bed.hub.startAtLaunch();
    await bed.hub.prepare();
    const turn = bed.turn();
    expect(Object.keys(turn.reg).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(bed.hub.states()).toMatchObject([{ name: 'repo', source: 'workspace', status: 'needs-approval', approved: false }]);
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.existsSync(ws0.marker)).toBe(false);

    approveServer(openDb(bed.ws.dataDir), bed.ws.workspace, bed.hub.configured()[0]);
    bed.hub.reload();
    await bed.hub.prepare();
    expect(fs.existsSync(ws0.marker)).toBe(true);
    expect(bed.hub.states()[0]).toMatchObject({ status: 'running', approved: true });
    expect((await bed.call('mcp__repo__shout', { word: 'ok' })).output).toBe('OK');

    // the repository changes what the server runs: it stops and waits for approval again
    fs.rmSync(ws0.marker);
    const changed = marking(ws0.marker);
    changed.args.push('--changed');
    bed.ws.write('.mcp.json', JSON.stringify({ mcpServers: { repo: changed } }));
    bed.hub.reload();
    await bed.hub.prepare();
    expect(bed.hub.states()[0]).toMatchObject({ status: 'needs-approval', approved: false });
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.existsSync(ws0.marker)).toBe(false);
  }, 60_000);

  it("does not fill ${VAR} from the person's environment", () => {
    bed = hubBed({}, { workspaceServers: { leak: { command: 'echo', args: ['${HOME}'] } } });
    expect(bed.hub.states()[0].target).toBe('echo ${HOME}');
  });
});

describe('where a server runs', () => {
  let bed: ReturnType<typeof hubBed> | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
    delete process.env.CLAMP_SANDBOX;
  });

  /** A server that tries to leave a mark outside the workspace, then serves the fixture's tools. */
  const writer = (file: string) => ({ command: process.execPath, args: ['-e', `try { require('fs').writeFileSync(${JSON.stringify(file)}, 'x') } catch {} import(${JSON.stringify(FIXTURE)})`] });

  it("a repository's server runs in the sandbox (no write outside the workspace); the person's own runs as it is", async () => {
    bed = hubBed({}, { workspaceServers: {} });
    const fromRepo = path.join(bed.ws.root, 'repo-wrote');
    const fromPerson = path.join(bed.ws.root, 'person-wrote');
    fs.writeFileSync(path.join(bed.ws.root, 'mcp.json'), JSON.stringify({ mcpServers: { mine: writer(fromPerson) } }));
    bed.ws.write('.mcp.json', JSON.stringify({ mcpServers: { repo: writer(fromRepo) } }));
    bed.hub.reload();
    approveServer(openDb(bed.ws.dataDir), bed.ws.workspace, bed.hub.configured().find((e) => e.name === 'repo')!);
    bed.hub.reload();
    await bed.hub.prepare();
    expect(bed.hub.states().map((s) => [s.name, s.status])).toEqual([['mine', 'running'], ['repo', 'running']]);
    expect((await bed.call('mcp__repo__shout', { word: 'ok' })).output).toBe('OK');
    expect(fs.existsSync(fromRepo)).toBe(false);
    expect(fs.existsSync(fromPerson)).toBe(true);
    const log = fs.readFileSync(bed.hub.runtime('repo')!.logPath, 'utf8');
    expect(log).toContain('(in the sandbox: workspace-write, no network)');
  }, 60_000);

  it("with the sandbox turned off explicitly (CLAMP_SANDBOX=off) a repository's server runs unconfined", async () => {
    process.env.CLAMP_SANDBOX = 'off';
    bed = hubBed({}, { workspaceServers: {} });
    const fromRepo = path.join(bed.ws.root, 'repo-wrote');
    bed.ws.write('.mcp.json', JSON.stringify({ mcpServers: { repo: writer(fromRepo) } }));
    bed.hub.reload();
    approveServer(openDb(bed.ws.dataDir), bed.ws.workspace, bed.hub.configured()[0]);
    bed.hub.reload();
    await bed.hub.prepare();
    expect(bed.hub.states()[0]).toMatchObject({ status: 'running' });
    expect(fs.existsSync(fromRepo)).toBe(true);
  }, 60_000);
});

describe('a server that cannot start', () => {
  it('says why, with the fix, and offers no tools', async () => {
    const bed = hubBed({ missing: { command: 'clamp-no-such-mcp-server-xyz' } }, { budget: { MCP_RESTART_MAX_ATTEMPTS: 1 } });
    try {
      await bed.hub.prepare();
      expect(bed.hub.states()[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('the command "clamp-no-such-mcp-server-xyz" was not found: install it, or give its full path') });
      expect(bed.hub.tools()).toEqual([]);
    } finally {
      await bed.close();
    }
  });
});
