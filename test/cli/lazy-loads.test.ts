import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';

/**
 * What the built CLI loads (issue 30): `clamp run --help` and a headless run with no MCP server load neither
 * the MCP SDK nor the language-server packages nor another provider's SDK, and the tokenizer only after the
 * first model request once the data dir remembers the long texts' counts; with an MCP server configured the
 * SDK loads. Each process runs with test/cli/trace-loads.mjs preloaded, which lists the package files it loads.
 */
const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as Record<string, string>;
const TRACE = path.join(ROOT, 'test/cli/trace-loads.mjs');
const LAZY = ['@modelcontextprotocol/sdk', '/ajv/', 'vscode-languageserver-protocol', 'vscode-jsonrpc', '@ai-sdk/anthropic', '@ai-sdk/openai/', '@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/otlp-'];

let ws: ReturnType<typeof tempWorkspace>;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
beforeAll(async () => {
  ws = tempWorkspace('clamp-lazy-');
  ws.write('notes.txt', 'one\n');
  fake = await startFakeOpenAI(() => ({ text: 'ok' }));
});
afterAll(async () => {
  await fake.close();
  ws.cleanup();
});

interface Loads {
  code: number | null;
  err: string;
  /** each package file loaded, with the epoch ms its load started */
  loads: Array<{ at: number; file: string }>;
}

let runNo = 0;
/** Run bin/clamp.mjs from an up-to-date bundle with the trace preloaded (built, and the run tried again, when it ran from the sources). */
async function traced(args: string[], env: Record<string, string> = {}): Promise<Loads> {
  for (let attempt = 0; ; attempt++) {
    // the bin runs the bundle only when it matches every source: built again only after a run from the sources
    if (attempt > 0) {
      const b = spawnSync(process.execPath, ['scripts/build-cli.mjs', '--quiet'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
      expect(b.status, b.stderr).toBe(0);
    }
    const file = path.join(ws.root, `loads-${++runNo}.txt`);
    const r = await new Promise<{ code: number | null; err: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', TRACE, path.join(ROOT, 'bin/clamp.mjs'), ...args], {
        cwd: ws.workspace,
        env: { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_SAY_ENTRY: '1', CLAMP_NO_REBUILD: '1', CLAMP_TEST_LOADS: file, ...env } as unknown as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stdout.resume();
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, err }));
    });
    if (!/from the bundle/.test(r.err) && attempt < 2) continue;
    expect(r.err).toMatch(/from the bundle/);
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const loads = text.split('\n').filter(Boolean).map((l) => ({ at: Number(l.slice(0, l.indexOf(' '))), file: l.slice(l.indexOf(' ') + 1) }));
    return { ...r, loads };
  }
}

const loaded = (r: Loads, needle: string) => r.loads.filter((l) => l.file.includes(`/node_modules/`) && l.file.includes(needle));
const model = () => ({ CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url });

describe('what the built CLI loads', () => {
  it('clamp run --help loads no package it does not need', async () => {
    const r = await traced(['run', '--help']);
    expect(r.code).toBe(0);
    for (const p of [...LAZY, 'gpt-tokenizer', '@ai-sdk/openai-compatible']) expect(loaded(r, p), p).toEqual([]);
  }, 180_000);

  it('a headless run with no MCP server: no MCP SDK, no language server, one provider SDK, the tokenizer after the request', async () => {
    // the first run in a data dir counts its long texts before the request and remembers their counts
    const first = await traced(['run', 'say ok'], model());
    expect(first.code, first.err).toBe(0);
    const before = fake.requests.length;
    const r = await traced(['run', 'say ok'], model());
    expect(r.code, r.err).toBe(0);
    for (const p of LAZY) expect(loaded(r, p), p).toEqual([]);
    expect(loaded(r, '@ai-sdk/openai-compatible').length).toBeGreaterThan(0);
    const request = fake.requests[before];
    expect(request).toBeDefined();
    const requestAt = performance.timeOrigin + request.arrivedAtMs;
    const tokenizer = loaded(r, 'gpt-tokenizer');
    // counted when the step finished, for the ledger
    expect(tokenizer.length).toBeGreaterThan(0);
    expect(Math.min(...tokenizer.map((l) => l.at))).toBeGreaterThanOrEqual(Math.floor(requestAt));
  }, 180_000);

  it('with an MCP server configured, the run loads the MCP SDK', async () => {
    const config = path.join(ws.root, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { broken: { command: path.join(ws.root, 'no-such-server') } } }));
    const r = await traced(['run', 'say ok'], { ...model(), CLAMP_MCP_CONFIG: config });
    expect(r.code, r.err).toBe(0);
    expect(loaded(r, '@modelcontextprotocol/sdk').length).toBeGreaterThan(0);
  }, 180_000);
});
