import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { startFakeOpenAI } from '../fake-openai';
import { tempWorkspace } from '../helpers';

/**
 * The CLI bundle (dist/cli/, made by scripts/build-cli.mjs): the bin scripts run it while it is fresh,
 * fall back to the sources when a source changed (or CLAMP_FROM_SOURCES=1), and what the CLI does works
 * from it: clamp run against a model server, read_file, grep on worker threads, run_command's bash parser.
 */
const MANIFEST = path.join(ROOT, 'dist/cli/manifest.json');
const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as Record<string, string>;

let ws: ReturnType<typeof tempWorkspace>;
beforeAll(() => {
  ws = tempWorkspace('clamp-bundle-');
  ws.write('hello.txt', 'one\ntwo\n');
  // a search long enough to go to the grep worker threads (past 1,500 files)
  for (let i = 0; i < 2000; i++) ws.write(`many/d${i % 20}/f${i}.txt`, i === 1999 ? 'needle 1999\n' : `line ${i}\n`);
  ws.write('many/d0/first.txt', 'needle 0\n');
});
afterAll(() => ws.cleanup());

function build() {
  const r = spawnSync(process.execPath, ['scripts/build-cli.mjs', '--quiet'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
}

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

function runBin(bin: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin', bin), ...args], {
      cwd: ws.workspace,
      env: { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_SAY_ENTRY: '1', CLAMP_NO_REBUILD: '1', ...env } as unknown as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code: number | null) => resolve({ code, out, err }));
  });
}

/**
 * Run a bin from an up-to-date bundle. The bin itself checks every input's size and mtime against the manifest and
 * runs the sources when one differs, so the bundle is built (and the run tried again) only when the run says it
 * came from the sources: a missing bundle, or a source others changed meanwhile. A few tries at most.
 */
async function fromBundle(bin: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  let r = await runBin(bin, args, env);
  for (let i = 0; i < 3 && !/from the bundle/.test(r.err); i++) {
    build();
    r = await runBin(bin, args, env);
  }
  if (/from the bundle/.test(r.err)) return r;
  throw new Error(`the bin never ran the bundle:\n${r.err}`);
}

describe('the CLI bundle', () => {
  it('the build writes the entries and a manifest of its sources with their sizes and mtimes', () => {
    build();
    const m = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as { entries: Record<string, string>; inputs: Record<string, [number, number]> };
    expect(Object.keys(m.entries).sort()).toEqual(['launch', 'run-args', 'tool-cli', 'tool-usage']);
    for (const file of Object.values(m.entries)) expect(fs.existsSync(path.join(ROOT, 'dist/cli', file))).toBe(true);
    const st = fs.statSync(path.join(ROOT, 'lib/cli/tool-cli.ts'));
    expect(m.inputs['lib/cli/tool-cli.ts']).toEqual([st.size, st.mtimeMs]);
  }, 120_000);

  it('a rebuild keeps the chunks a running Clamp may still import, and removes those no build wrote for a day', () => {
    build();
    const recent = path.join(ROOT, 'dist/cli/chunk-EARLIERBUILD.mjs');
    const old = path.join(ROOT, 'dist/cli/chunk-LONGAGO.mjs');
    fs.writeFileSync(recent, 'export {};\n');
    fs.writeFileSync(old, 'export {};\n');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    fs.utimesSync(old, twoDaysAgo, twoDaysAgo);
    build();
    expect(fs.existsSync(recent)).toBe(true);
    expect(fs.existsSync(old)).toBe(false);
    fs.rmSync(recent);
  }, 120_000);

  it('clamp run --help from the bundle loads only the flags module and prints the usage', async () => {
    const r = await fromBundle('clamp.mjs', ['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: clamp run/);
    expect(r.err).toContain('clamp: run-args from the bundle');
    expect(r.err).not.toContain('launch from');
  }, 120_000);

  it('clamp-tool --help from the bundle loads only its usage module', async () => {
    const r = await fromBundle('clamp-tool.mjs', ['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: npm run tool/);
    expect(r.err).toContain('clamp: tool-usage from the bundle');
    expect(r.err).not.toContain('tool-cli from');
    const bad = await fromBundle('clamp-tool.mjs', ['--help', '--nope']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('Unknown option --nope');
  }, 120_000);

  it('a bad flag next to --help still gets the run’s error', async () => {
    const r = await fromBundle('clamp.mjs', ['run', '--nope', '--help']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('Unknown option --nope');
  }, 120_000);

  it('read_file, grep on worker threads and run_command work from the bundle', async () => {
    const read = await fromBundle('clamp-tool.mjs', ['read_file', '{"path":"hello.txt"}']);
    expect(JSON.parse(read.out)).toMatchObject({ status: 'ok' });
    expect(JSON.parse(read.out).output).toContain('1\tone');

    const grep = await fromBundle('clamp-tool.mjs', ['grep', '{"pattern":"needle \\\\d+","path":"many"}'], { CLAMP_GREP_ENGINE: 'builtin' });
    const g = JSON.parse(grep.out);
    expect(g.status, grep.out).toBe('ok');
    expect(g.meta.engine).toBe('builtin+workers');
    expect(g.meta.matches).toBe(2);
    expect(g.output).toContain('needle 1999');

    const cmd = await fromBundle('clamp-tool.mjs', ['run_command', '{"command":"ls many | wc -l && echo done"}', '--approve']);
    const c = JSON.parse(cmd.out);
    expect(c.status, cmd.out).toBe('ok');
    expect(c.output).toMatch(/20\s*\ndone/);
  }, 240_000);

  it('clamp acp from the bundle answers initialize on stdio, and stdout holds only protocol frames', async () => {
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    const acpInit = () =>
      new Promise<Ran>((resolve, reject) => {
        const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'clamp.mjs'), 'acp'], {
          cwd: ws.workspace,
          env: { ...BARE_ENV, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_SAY_ENTRY: '1', CLAMP_NO_REBUILD: '1' } as unknown as NodeJS.ProcessEnv,
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('error', reject);
        child.on('exit', (code: number | null) => resolve({ code, out, err }));
        // the editor sends initialize and closes: Clamp answers, then exits
        child.stdin.end(initialize + '\n');
      });
    // built only when the bin ran from the sources (see fromBundle)
    let r = await acpInit();
    for (let i = 0; i < 3 && !/launch from the bundle/.test(r.err); i++) {
      build();
      r = await acpInit();
    }
    expect(r.err).toContain('clamp: launch from the bundle');
    expect(r.code, r.err).toBe(0);
    const frames = r.out.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result: { agentCapabilities: { loadSession: boolean }; agentInfo: { name: string } } });
    expect(frames).toHaveLength(1);
    expect(frames[0].id).toBe(1);
    expect(frames[0].result.agentCapabilities.loadSession).toBe(true);
    expect(frames[0].result.agentInfo.name).toBe('clamp');
  }, 120_000);

  it('clamp run from the bundle runs a turn against a model server', async () => {
    const fake = await startFakeOpenAI((req) => {
      const last = req.body.messages.at(-1)!;
      if (last.role === 'tool') return { text: 'Read it.' };
      return { text: 'Looking.', toolCalls: [{ name: 'read_file', args: { path: 'hello.txt' }, id: 'call_read' }] };
    });
    try {
      build(); // a run from the sources would reach the stand-in model too: the bundle is made current first
      const r = await fromBundle('clamp.mjs', ['run', 'read hello.txt'], { CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: fake.url });
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain('clamp: launch from the bundle');
      expect(r.out).toContain('Read it.');
      expect(fake.requests).toHaveLength(2);
      expect(JSON.stringify(fake.requests[1].body.messages)).toContain('1\\tone');
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('falls back to the sources when a source changed or CLAMP_FROM_SOURCES=1, and rebuilds a stale bundle', async () => {
    build();
    const forced = await runBin('clamp.mjs', ['run', '--help'], { CLAMP_FROM_SOURCES: '1' });
    expect(forced.code).toBe(0);
    expect(forced.err).toContain('clamp: run-args from the sources');
    // a command from the sources: the runner's execa is imported before it starts (a require of it fails under tsx)
    const cmd = await runBin('clamp-tool.mjs', ['run_command', '{"command":"echo from-$((6*7))"}', '--approve'], { CLAMP_FROM_SOURCES: '1' });
    expect(cmd.err).toContain('clamp: tool-cli from the sources');
    expect(JSON.parse(cmd.out), cmd.out).toMatchObject({ status: 'ok' });
    expect(JSON.parse(cmd.out).output).toContain('from-42');

    // an input's mtime moves (its text stays): the bundle is stale. The input is the bundle's build script, not a
    // file under lib/: that would also change the page's source fingerprint and make every server test that
    // starts after this one (on the other worker too) rebuild the page for minutes.
    // Another process may build the bundle between these steps (a test run's setup, a bin script's background
    // rebuild): the steps are tried again from the touch then, a few times at most.
    const src = path.join(ROOT, 'scripts/build-cli.mjs');
    let before = '';
    for (let attempt = 0; ; attempt++) {
      const now = new Date();
      fs.utimesSync(src, now, now);
      const stale = await runBin('clamp-tool.mjs', ['read_file', '{"path":"hello.txt"}']);
      if (!stale.err.includes('from the sources') && attempt < 3) continue;
      expect(stale.err).toContain('clamp: tool-cli from the sources');
      expect(JSON.parse(stale.out).output).toContain('1\tone');

      // without CLAMP_NO_REBUILD the launcher starts a rebuild in the background; the next start uses it
      before = fs.readFileSync(MANIFEST, 'utf8');
      const kick = await runBin('clamp.mjs', ['run', '--help'], { CLAMP_NO_REBUILD: '' });
      if (!kick.err.includes('from the sources') && attempt < 3) continue;
      expect(kick.err).toContain('from the sources');
      break;
    }
    const deadline = Date.now() + 90_000;
    while (fs.readFileSync(MANIFEST, 'utf8') === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 300));
    const m = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as { inputs: Record<string, [number, number]> };
    expect(m.inputs['scripts/build-cli.mjs'][1]).toBe(fs.statSync(src).mtimeMs);
  }, 240_000);
});
