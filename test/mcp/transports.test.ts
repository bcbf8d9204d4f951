import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURE, hubBed, until } from './hub-bed';

describe('MCP: server-filesystem over stdio', () => {
  let bed: ReturnType<typeof hubBed>;
  beforeAll(async () => {
    bed = hubBed({});
    bed.ws.write('notes/a.txt', 'alpha\n');
    fs.writeFileSync(path.join(bed.ws.root, 'mcp.json'), JSON.stringify({ mcpServers: { fs: { command: BIN('mcp-server-filesystem'), args: [bed.ws.workspace] } } }));
    bed.hub.reload();
    await bed.hub.prepare();
  }, 60_000);
  afterAll(() => bed.close());

  it('reads through a read-only tool without asking, and asks before writing', async () => {
    const tools = bed.hub.tools();
    expect(tools.find((t) => t.name === 'mcp__fs__read_text_file')?.effect).toBe('read');
    expect(tools.find((t) => t.name === 'mcp__fs__write_file')?.effect).toBe('system');
    const read = await bed.call('mcp__fs__read_text_file', { path: path.join(bed.ws.workspace, 'notes/a.txt') }, { opts: {} });
    expect(read.status).toBe('ok');
    expect(read.output).toContain('alpha');
    const write = await bed.call('mcp__fs__write_file', { path: path.join(bed.ws.workspace, 'b.txt'), content: 'beta' }, { opts: {} });
    expect(write.status).toBe('approval-required');
    expect(fs.existsSync(path.join(bed.ws.workspace, 'b.txt'))).toBe(false);
    const approved = await bed.call('mcp__fs__write_file', { path: path.join(bed.ws.workspace, 'b.txt'), content: 'beta' });
    expect(approved.status).toBe('ok');
    expect(bed.ws.read('b.txt')).toBe('beta');
  });

  it('a server error (a path outside its roots) comes back as an error result with its text', async () => {
    const r = await bed.call('mcp__fs__read_text_file', { path: '/etc/hostname' });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/outside allowed directories|Access denied/i);
  });
});

describe('MCP over HTTP on loopback', () => {
  let server: ChildProcess;
  let port = 0;
  let bed: ReturnType<typeof hubBed>;
  beforeAll(async () => {
    bed = hubBed({});
    const portFile = path.join(bed.ws.root, 'port');
    server = spawn(process.execPath, [FIXTURE, '--http', portFile], { stdio: 'ignore' });
    port = Number(await until(() => fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8'), 20_000, 'the HTTP server'));
    fs.writeFileSync(
      path.join(bed.ws.root, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          streamable: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer ${FIXTURE_TOKEN:-none}' } },
          legacy: { type: 'http', url: `http://127.0.0.1:${port}/sse` },
        },
      }),
    );
    bed.hub.reload();
    await bed.hub.prepare();
  }, 60_000);
  afterAll(async () => {
    server.kill();
    await bed.close();
  });

  it('Streamable HTTP: lists and calls', async () => {
    expect(bed.hub.states().find((s) => s.name === 'streamable')).toMatchObject({ status: 'running', transport: 'http', headerNames: ['Authorization'] });
    const r = await bed.call('mcp__streamable__shout', { word: 'http' });
    expect(r.output).toBe('HTTP');
  });

  it('falls back to the HTTP+SSE transport when Streamable HTTP is refused', async () => {
    const st = bed.hub.states().find((s) => s.name === 'legacy')!;
    expect(st.status).toBe('running');
    expect(fs.readFileSync(st.logPath, 'utf8')).toContain('Streamable HTTP failed');
    const r = await bed.call('mcp__legacy__shout', { word: 'sse' });
    expect(r.output).toBe('SSE');
  });
});
