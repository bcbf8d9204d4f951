import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editFileTool } from '../../lib/tools/edit-file/edit-file';
import { writeFileTool } from '../../lib/tools/write-file';
import { applyPatchTool } from '../../lib/tools/apply-patch/apply-patch';
import { createDiagnostics, stopLanguageServers } from '../../lib/lsp/service';
import { BUDGET, type Budget } from '../../lib/contract/budget';
import type { ToolResult } from '../../lib/contract/types';
import { harness, tempWorkspace } from '../helpers';
import { DIAGNOSTICS_COLD_START_FIGURE_MS } from '../../bench/diagnostics';

/**
 * Diagnostics after edits through the real typescript-language-server (Clamp's own, under bubblewrap when
 * it can run) in a temp TypeScript project, and stand-in servers configured in the data dir's lsp.json.
 */
const FAKE = path.join(__dirname, 'fake-lsp.mjs');
const tools = [editFileTool, writeFileTool, applyPatchTool];
let ws: ReturnType<typeof tempWorkspace>;
let enabled = true;
// a loaded machine starts tsserver slowly: these tests wait for the answer in the result, long enough to measure a
// cold start (test/lsp/late.test.ts has results that go back before it)
const budget: Partial<Budget> = { DIAGNOSTICS_TIMEOUT_MS: 3 * DIAGNOSTICS_COLD_START_FIGURE_MS, DIAGNOSTICS_WAIT_MS: 3 * DIAGNOSTICS_COLD_START_FIGURE_MS };

/** The pids below pid (children, their children …), read from /proc. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const at = queue.shift()!;
    const children = [...parent].filter(([, p]) => p === at).map(([child]) => child);
    found.push(...children);
    queue.push(...children);
  }
  return found;
}

function bed(extraBudget: Partial<Budget> = {}) {
  const b = { ...budget, ...extraBudget };
  const diagnostics = createDiagnostics({ workspace: ws.workspace, dataDir: ws.dataDir, enabled: () => enabled, budget: b });
  return harness(tools, ws, { services: { diagnostics }, budget: b });
}
const diag = (r: ToolResult) => r.meta?.diagnostics;

beforeAll(() => {
  ws = tempWorkspace('clamp-lsp-');
  // lib without the DOM's declarations, which these sources never use: each TypeScript server loads about 1.2 s of CPU less
  ws.write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', lib: ['ES2022'], module: 'ESNext', moduleResolution: 'bundler', noEmit: true, allowJs: true, checkJs: false }, include: ['src'] }));
  ws.write('src/math.ts', 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
  ws.write('src/use.ts', "import { add } from './math';\n\nexport const total: number = add(1, 2);\n");
  ws.write('notes.md', '# Notes\n');
  fs.writeFileSync(
    path.join(ws.dataDir, 'lsp.json'),
    JSON.stringify({
      servers: {
        silent: { command: process.execPath, args: [FAKE, 'never'], patterns: ['*.never'], sandbox: false },
        pushy: { command: process.execPath, args: [FAKE, 'push'], patterns: ['*.push'], sandbox: false },
        pully: { command: process.execPath, args: [FAKE, 'pull'], patterns: ['**/*.pull'], sandbox: false },
        ghost: { command: 'clamp-no-such-language-server', patterns: ['*.ghost'] },
      },
    }),
  );
});

afterAll(async () => {
  await stopLanguageServers();
  ws.cleanup();
});

describe('diagnostics after edits: TypeScript', () => {
  it('an edit that breaks a type returns the compiler error, the first call (a cold start) within the BENCHMARKS.md figure', async () => {
    const h = bed();
    const t0 = Date.now();
    const r = await h.call('edit_file', { path: 'src/use.ts', old_string: 'export const total: number', new_string: 'export const total: string' });
    const took = Date.now() - t0;
    expect(r.status).toBe('ok');
    expect(diag(r)?.state).toBe('checked');
    expect(took).toBeLessThan(2 * DIAGNOSTICS_COLD_START_FIGURE_MS);
    expect(r.output).toContain("Diagnostics (typescript): 1 new error (showing 1):\n  src/use.ts:3:14 error TS2322: Type 'number' is not assignable to type 'string'.");
    expect(diag(r)?.newErrors).toEqual([expect.objectContaining({ path: 'src/use.ts', line: 3, column: 14, code: 2322, severity: 'error' })]);
  }, 4 * DIAGNOSTICS_COLD_START_FIGURE_MS);

  it('the fix returns no diagnostics', async () => {
    const r = await bed().call('edit_file', { path: 'src/use.ts', old_string: 'export const total: string', new_string: 'export const total: number' });
    expect(r.status).toBe('ok');
    expect(r.output).not.toContain('Diagnostics');
    expect(diag(r)).toMatchObject({ state: 'checked', newErrors: [], preexisting: 0 });
  });

  it('the built-in server runs one tsserver, not a second syntax-only one beside it', () => {
    // the server of the calls above is still up: every tsserver this test process started, seen from /proc
    const modes = descendants(process.pid)
      .map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'))
      .filter((argv) => argv.some((a) => a.endsWith('tsserver.js')))
      .map((argv) => (argv.includes('--serverMode') ? argv[argv.indexOf('--serverMode') + 1] : 'semantic'));
    expect(modes.length).toBeGreaterThan(0);
    expect(modes.filter((m) => m === 'partialSemantic')).toEqual([]);
  });

  it('a pre-existing error is not reported as new, also when the edit moves it down', async () => {
    const h = bed();
    ws.write('src/old.ts', "export const broken: string = 42;\n\nexport function f(): number {\n  return 1;\n}\n");
    // an edit elsewhere in the file: the old error stays where it was
    let r = await h.call('edit_file', { path: 'src/old.ts', old_string: '  return 1;', new_string: '  return 2;' });
    expect(r.output).not.toContain('Diagnostics');
    expect(diag(r)).toMatchObject({ state: 'checked', newErrors: [], preexisting: 1 });
    // lines above it: the same error three lines down is still the old one
    r = await h.call('edit_file', { path: 'src/old.ts', old_string: 'export const broken', new_string: '// one\n// two\n// three\nexport const broken' });
    expect(r.output).not.toContain('Diagnostics');
    expect(diag(r)).toMatchObject({ newErrors: [], preexisting: 1 });
    // a new error of the very same kind next to it is new, and only it is listed
    r = await h.call('edit_file', { path: 'src/old.ts', old_string: '  return 2;', new_string: '  const again: string = 7;\n  return again.length;' });
    expect(diag(r)?.newErrors).toEqual([expect.objectContaining({ line: 7, code: 2322 })]);
    expect(r.output).toContain('1 new error (showing 1):\n  src/old.ts:7:9 error TS2322');
    expect(r.output).toContain('(Not listed: 1 error already there before this change.)');
  });

  it('write_file and apply_patch are checked too; a created file counts every error as new', async () => {
    const h = bed();
    let r = await h.call('write_file', { path: 'src/fresh.ts', content: 'export const n: number = "x";\n' });
    expect(diag(r)?.newErrors).toEqual([expect.objectContaining({ path: 'src/fresh.ts', line: 1, code: 2322 })]);
    r = await h.call('apply_patch', {
      patch: ['*** Begin Patch', '*** Update File: src/fresh.ts', '-export const n: number = "x";', '+export const n: number = 1;', '*** Add File: src/other.ts', '+export const s: string = n;', "+import { n } from './fresh';", '*** End Patch'].join('\n'),
    });
    expect(r.status).toBe('ok');
    expect(diag(r)?.newErrors).toEqual([expect.objectContaining({ path: 'src/other.ts', code: 2322 })]);
    expect(r.output).toMatch(/1 new error \(showing 1\):\n {2}src\/other\.ts:1:\d+ error TS2322/);
  });

  it('a JavaScript file is checked (syntax always; types where it asks for them)', async () => {
    const h = bed();
    ws.write('src/app.js', '// @ts-check\n/** @type {number} */\nexport const port = 8080;\n');
    const r = await h.call('edit_file', { path: 'src/app.js', old_string: 'export const port = 8080;', new_string: "export const port = '8080';" });
    expect(diag(r)?.newErrors).toEqual([expect.objectContaining({ path: 'src/app.js', line: 3, code: 2322 })]);
    const r2 = await h.call('edit_file', { path: 'src/app.js', old_string: "export const port = '8080';", new_string: 'export const port = (8080;' });
    expect(diag(r2)?.newErrors.length).toBeGreaterThan(0);
    expect(r2.output).toContain("error TS1005: ')' expected.");
  });

  it('a file no server covers gets no note and no meta', async () => {
    const r = await bed().call('edit_file', { path: 'notes.md', old_string: '# Notes', new_string: '# Notes\n\nconst x: string = 1;' });
    expect(r.status).toBe('ok');
    expect(r.output).not.toContain('Diagnostics');
    expect(diag(r)).toBeUndefined();
  });

  it('with the setting off there are no diagnostics', async () => {
    enabled = false;
    try {
      const r = await bed().call('write_file', { path: 'src/off.ts', content: 'export const n: number = "x";\n' });
      expect(r.status).toBe('ok');
      expect(r.output).not.toContain('Diagnostics');
      expect(diag(r)).toBeUndefined();
    } finally {
      enabled = true;
    }
  });

  it('many new errors are counted and bounded, and the result keeps the exit cap', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `export const v${i}: string = ${i};`).join('\n');
    const r = await bed().call('write_file', { path: 'src/many.ts', content: `${lines}\n` });
    expect(diag(r)?.newErrors).toHaveLength(30);
    expect(r.output).toContain(`30 new errors (showing ${BUDGET.DIAGNOSTICS_MAX_SHOWN}; ${30 - BUDGET.DIAGNOSTICS_MAX_SHOWN} more not listed):`);
    expect(r.output.split('\n').filter((l) => l.includes('error TS2322'))).toHaveLength(BUDGET.DIAGNOSTICS_MAX_SHOWN);
    const small = await bed({ TOOL_OUTPUT_MAX_BYTES: 700 }).call('write_file', { path: 'src/many2.ts', content: `${lines}\n` });
    expect(Buffer.byteLength(small.output)).toBeLessThanOrEqual(700);
    expect(small.truncation?.by).toBe('exit');
    expect(diag(small)?.newErrors).toHaveLength(30);
  });
});

describe('diagnostics after edits: configured servers', () => {
  it('a server that pushes diagnostics: only the new ones', async () => {
    const h = bed();
    ws.write('a.push', 'fine\nBAD old\n');
    const r = await h.call('edit_file', { path: 'a.push', old_string: 'fine', new_string: 'top\nfine BAD' });
    expect(diag(r)).toMatchObject({ servers: ['pushy'], state: 'checked', preexisting: 1 });
    expect(r.output).toContain('Diagnostics (pushy): 1 new error (showing 1):\n  a.push:2:6 error [bad]: BAD is not allowed here');
  });

  it('a server with pull diagnostics', async () => {
    const r = await bed().call('write_file', { path: 'deep/b.pull', content: 'ok\nBAD\n' });
    expect(r.output).toContain('Diagnostics (pully): 1 new error (showing 1):');
    expect(diag(r)?.newErrors).toEqual([expect.objectContaining({ path: 'deep/b.pull', line: 2, column: 1, code: 'bad' })]);
  });

  it('a server that never answers: "pending" after the wait, then "not ready" at the timeout; the call still succeeds', async () => {
    const h = bed({ DIAGNOSTICS_WAIT_MS: 500, DIAGNOSTICS_TIMEOUT_MS: 1500 });
    const diagnostics = createDiagnostics({ workspace: ws.workspace, dataDir: ws.dataDir, enabled: () => true, budget: { DIAGNOSTICS_WAIT_MS: 500, DIAGNOSTICS_TIMEOUT_MS: 1500 } });
    const t0 = Date.now();
    const r = await h.call('write_file', { path: 'x.never', content: 'BAD\n' });
    expect(r.status).toBe('ok');
    expect(Date.now() - t0).toBeLessThan(500 + 1000);
    expect(diag(r)).toMatchObject({ servers: ['silent'], state: 'pending', newErrors: [], lateId: expect.any(String) });
    expect(r.output).toContain('Diagnostics pending: the silent language server did not answer within 500 ms (it is still starting).');
    // the check itself, as the service gives it: not ready at the timeout
    const report = await diagnostics.check([{ abs: path.join(ws.workspace, 'x.never'), rel: 'x.never', before: null }], new AbortController().signal);
    expect(report?.meta.state).toBe('pending');
    const late = await report!.late!;
    expect(late.meta).toMatchObject({ state: 'not-ready', note: 'it is still starting' });
    expect(late.text).toBe('Diagnostics not ready: the silent language server did not answer within 1.5 s (it is still starting); this change was not checked. Later edits are.');
  });

  it('a server whose program is missing adds nothing to the result', async () => {
    const r = await bed().call('write_file', { path: 'c.ghost', content: 'BAD\n' });
    expect(r.status).toBe('ok');
    expect(r.output).not.toContain('Diagnostics');
    expect(diag(r)).toBeUndefined();
    const status = createDiagnostics({ workspace: ws.workspace, dataDir: ws.dataDir, enabled: () => true }).status();
    expect(status.servers.find((s) => s.name === 'ghost')).toMatchObject({ state: 'missing', detail: expect.stringContaining('clamp-no-such-language-server was not found on PATH') });
  });

  it('a server that crashes says so once, and is started again on the next edit', async () => {
    const h = bed();
    const crash = await h.call('write_file', { path: 'd.push', content: 'CRASH\n' });
    expect(crash.status).toBe('ok');
    expect(diag(crash)?.state).toBe('failed');
    expect(crash.output).toMatch(/Diagnostics unavailable: the pushy language server stopped: the server exited \(code 3\)/);
    const next = await h.call('write_file', { path: 'e.push', content: 'BAD\n' });
    expect(diag(next)).toMatchObject({ state: 'checked', newErrors: [expect.objectContaining({ line: 1 })] });
  });
});

describe('diagnostics after edits: where the TypeScript server runs', () => {
  it("runs sandboxed (when bubblewrap can) with the workspace's TypeScript only there, else Clamp's own", async () => {
    const st = createDiagnostics({ workspace: ws.workspace, dataDir: ws.dataDir, enabled: () => true }).status();
    const tsView = st.servers.find((s) => s.name === 'typescript');
    expect(tsView).toMatchObject({ state: expect.stringMatching(/^(running|idle)$/), typescript: 'clamp' });
    const other = tempWorkspace('clamp-lsp-own-ts-');
    try {
      other.write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true, lib: ['ES2022'] } }));
      fs.mkdirSync(path.join(other.workspace, 'node_modules'));
      fs.symlinkSync(path.resolve(__dirname, '../../node_modules/typescript'), path.join(other.workspace, 'node_modules/typescript'));
      const diagnostics = createDiagnostics({ workspace: other.workspace, dataDir: other.dataDir, enabled: () => true, budget });
      const r = await harness(tools, other, { services: { diagnostics } }).call('write_file', { path: 'a.ts', content: 'export const n: number = "x";\n' });
      expect(diag(r), JSON.stringify(diag(r))).toMatchObject({ state: 'checked', newErrors: [expect.objectContaining({ code: 2322 })] });
      const view = diagnostics.status().servers.find((s) => s.name === 'typescript');
      expect(view?.typescript).toBe(view?.sandboxed ? 'workspace' : 'clamp');
      expect(view?.sandboxed).toBe(tsView?.sandboxed);
    } finally {
      await stopLanguageServers(other.workspace);
      other.cleanup();
    }
  }, 4 * DIAGNOSTICS_COLD_START_FIGURE_MS);
});
