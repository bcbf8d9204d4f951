import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LspClient } from '../../lib/lsp/client';
import { createDiagnostics, stopLanguageServers } from '../../lib/lsp/service';
import { writeFileTool } from '../../lib/tools/write-file';
import { typescriptServer } from '../../lib/lsp/servers';
import { sandboxStatus } from '../../lib/exec/sandbox';
import { BUDGET } from '../../lib/contract/budget';
import { harness, tempWorkspace } from '../helpers';
import { DIAGNOSTICS_COLD_START_FIGURE_MS } from '../../bench/diagnostics';

/**
 * Clamp installed under /tmp: the sandbox gives a language server a private /tmp, which would hide the
 * program it runs. What the server runs from (Clamp's folder, Node) is bound into its sandbox read-only,
 * wherever it lies; a server that cannot start says why.
 */
const CLAMP_ROOT = path.resolve(__dirname, '../..');
const sandbox = sandboxStatus();
let ws: ReturnType<typeof tempWorkspace>;
let installs: string;

beforeAll(() => {
  ws = tempWorkspace('clamp-lsp-install-');
  // lib without the DOM's declarations, which these sources never use: each TypeScript server loads about 1.2 s of CPU less
  ws.write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true, lib: ['ES2022'] } }));
  installs = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-installed-')));
});
afterAll(() => {
  ws.cleanup();
  fs.rmSync(installs, { recursive: true, force: true });
});

function client(root: string): LspClient {
  const spec = typescriptServer(root);
  if (!spec) throw new Error(`no typescript-language-server under ${root}`);
  return new LspClient({ spec, workspace: ws.workspace, dataDir: ws.dataDir, bwrap: sandbox.bwrap, env: process.env, startTimeoutMs: BUDGET.LSP_START_TIMEOUT_MS, settleMs: BUDGET.DIAGNOSTICS_SETTLE_MS });
}

async function firstError(c: LspClient): Promise<unknown> {
  try {
    const abs = path.join(ws.workspace, 'a.ts');
    return await c.diagnose(abs, 'export const n: number = "x";\n', { timeoutMs: 3 * DIAGNOSTICS_COLD_START_FIGURE_MS, signal: new AbortController().signal });
  } finally {
    await c.stop(BUDGET.LSP_SHUTDOWN_GRACE_MS);
  }
}

describe.skipIf(!sandbox.available)('a language server of Clamp installed under /tmp, sandboxed', () => {
  it('Clamp reached through a link under /tmp: its own server and TypeScript still give diagnostics', async () => {
    const link = path.join(installs, 'clamp-link');
    fs.symlinkSync(CLAMP_ROOT, link);
    const c = client(link);
    expect(c.spec.args[0].startsWith(`${link}/`)).toBe(true);
    expect(await firstError(c), c.failure).toEqual([expect.objectContaining({ code: 2322, line: 1 })]);
  }, 4 * DIAGNOSTICS_COLD_START_FIGURE_MS);

  it('a copy of the language server under /tmp (its real path there) still gives diagnostics', async () => {
    const root = path.join(installs, 'clamp-copy');
    fs.mkdirSync(path.join(root, 'node_modules'), { recursive: true });
    fs.cpSync(path.join(CLAMP_ROOT, 'node_modules/typescript-language-server'), path.join(root, 'node_modules/typescript-language-server'), { recursive: true });
    fs.symlinkSync(path.join(CLAMP_ROOT, 'node_modules/typescript'), path.join(root, 'node_modules/typescript'));
    const c = client(root);
    expect(fs.realpathSync(c.spec.args[0]).startsWith(`${root}/`)).toBe(true);
    expect(await firstError(c), c.failure).toEqual([expect.objectContaining({ code: 2322, line: 1 })]);
  }, 4 * DIAGNOSTICS_COLD_START_FIGURE_MS);

  it("a server that cannot start says why: its own last words, not only that its output closed", async () => {
    const root = path.join(installs, 'clamp-broken');
    fs.mkdirSync(path.join(root, 'node_modules/typescript-language-server/lib'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules/typescript-language-server/package.json'), '{"name":"typescript-language-server"}');
    fs.writeFileSync(path.join(root, 'node_modules/typescript-language-server/lib/cli.mjs'), "console.error('clamp-test: this server is broken on purpose');\nprocess.exit(7);\n");
    fs.symlinkSync(path.join(CLAMP_ROOT, 'node_modules/typescript'), path.join(root, 'node_modules/typescript'));
    const c = client(root);
    await expect(firstError(c)).rejects.toThrow();
    expect(c.failure).toMatch(/exited \(code 7\).*clamp-test: this server is broken on purpose/);
    // Node's own words for a script it cannot load, not the stack trace's tail
    fs.writeFileSync(path.join(root, 'node_modules/typescript-language-server/lib/cli.mjs'), "import './gone.mjs';\n");
    const gone = client(root);
    await expect(firstError(gone)).rejects.toThrow();
    expect(gone.failure).toMatch(/^the server exited \(code 1\): Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module '.*gone\.mjs'/);
  }, 60_000);
});

describe.skipIf(!sandbox.available)('a configured server that cannot start', () => {
  // its script under /tmp is not bound (which arguments are paths only the person knows): the failure names it
  it('the settings page says why it failed, in its own words', async () => {
    const script = path.join(installs, 'own-server/server.mjs');
    fs.mkdirSync(path.dirname(script), { recursive: true });
    fs.writeFileSync(script, "import './helper.mjs';\n");
    fs.writeFileSync(path.join(ws.dataDir, 'lsp.json'), JSON.stringify({ servers: { mine: { command: process.execPath, args: [script, '--stdio'], patterns: ['*.mine'] } } }));
    const diagnostics = createDiagnostics({ workspace: ws.workspace, dataDir: ws.dataDir, enabled: () => true });
    try {
      const r = await harness([writeFileTool], ws, { services: { diagnostics } }).call('write_file', { path: 'a.mine', content: 'x\n' });
      expect(r.meta?.diagnostics).toMatchObject({ state: 'failed' });
      expect(r.output).toMatch(/Diagnostics unavailable: the mine language server stopped: the server exited \(code 1\): Error: Cannot find module '.*server\.mjs'; this change was not checked/);
      const view = diagnostics.status().servers.find((s) => s.name === 'mine');
      expect(view).toMatchObject({ state: 'failed', detail: expect.stringMatching(/^the server exited \(code 1\): Error: Cannot find module '.*own-server\/server\.mjs'; it starts again on the next edit$/) });
    } finally {
      await stopLanguageServers(ws.workspace);
    }
  });
});
