import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempWorkspace } from '../helpers';

const ROOT = path.resolve(__dirname, '../..');
/** How long the child may take, tsx's start included, before it counts as hanging. */
const EXIT_WITHIN_MS = 30_000;

let ws: ReturnType<typeof tempWorkspace>;
beforeAll(() => {
  ws = tempWorkspace('clamp-grep-exit-');
  // enough files for the search to hand its rest to the worker threads
  for (let i = 0; i < 2400; i++) ws.write(`d${i % 12}/f${String(i).padStart(4, '0')}.ts`, i % 500 === 7 ? 'a needle here\n' : 'nothing\n');
}, 120_000);
afterAll(() => ws?.cleanup());

/** Run the tool CLI and wait for it to exit on its own (killed, and null, if it does not in time). */
function toolCli(args: string[]): Promise<{ code: number | null; stdout: string; ms: number }> {
  return new Promise((resolve) => {
    const t = performance.now();
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/clamp-tool.mjs'), ...args], {
      cwd: ROOT,
      env: { ...process.env, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, ms: performance.now() - t });
    });
  });
}

describe('a process that has grepped', () => {
  it('exits by itself once the search on the worker threads is done', { timeout: EXIT_WITHIN_MS + 10_000 }, async () => {
    const r = await toolCli(['grep', '{"pattern":"needle"}']);
    expect(r.code, `still running after ${Math.round(r.ms)} ms, killed`).toBe(0);
    const result = JSON.parse(r.stdout) as { status: string; output: string; meta: { engine: string; filesSearched: number } };
    expect(result.status).toBe('ok');
    expect(result.meta.engine).toBe('builtin+workers');
    expect(result.meta.filesSearched).toBe(2400);
    expect(result.output).toContain('Found 5 matching lines in 5 files');
  });
});
