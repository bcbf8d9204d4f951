/**
 * The launcher's build says what it is doing while it runs, with the time since it started: a line at
 * each of Next's steps and, while a step lasts, again every so often (on a terminal, one line redrawn
 * every second). A stand-in build program prints Next's lines with pauses between them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuild } from '../../lib/server/build';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeAll(() => (ws = tempWorkspace('clamp-build-progress-')));
afterAll(() => ws.cleanup());

/** A build program: each [ms, line] is printed after waiting ms; then it exits with code. */
function fakeBuild(steps: [number, string][], code = 0): string[] {
  const file = path.join(ws.root, `build-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(file, `const wait = (ms) => new Promise((r) => setTimeout(r, ms));\nfor (const [ms, line] of ${JSON.stringify(steps)}) { await wait(ms); console.log(line); }\nprocess.exitCode = ${code};\n`);
  return [process.execPath, file];
}

function sink(isTTY: boolean) {
  const out = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  return { out, text: () => text };
}

describe('the build’s progress', () => {
  it('off a terminal: a line for each of Next’s steps with the elapsed time, repeated while a step lasts, then the total', { timeout: 30_000 }, async () => {
    const { out, text } = sink(false);
    const command = fakeBuild([
      [50, '▲ Next.js 16.4.6 (Turbopack)'],
      [50, '   Creating an optimized production build ...'],
      [2300, ' ✓ Compiled successfully in 2.3s'],
      [50, '   Collecting page data using 1 worker ...'],
      [50, '   Generating static pages using 1 worker (0/5) ...'],
      [50, '   Finalizing page optimization ...'],
    ]);
    const r = await runBuild({ command, out, why: 'first start', stillEveryMs: 1000 });
    expect(r).toMatchObject({ ok: true, locked: false });
    const lines = text().trimEnd().split('\n');
    expect(lines[0]).toBe("Building Clamp's page (first start; this takes a minute or two)…");
    expect(lines[1]).toBe('  starting Next.js (0 s)');
    expect(lines[2]).toMatch(/^ {2}compiling the page \(\d+ s\)$/);
    // the long step says it still runs, with the time going up
    const compiling = lines.filter((l) => l.startsWith('  compiling the page'));
    expect(compiling.length).toBeGreaterThanOrEqual(2);
    expect(compiling.at(-1)).toMatch(/^ {2}compiling the page \([1-9]\d* s\)$/);
    for (const step of ['compiled; checking it', 'collecting page data', 'generating static pages', 'finalizing']) expect(lines.some((l) => l.startsWith(`  ${step} (`)), step).toBe(true);
    expect(lines.at(-1)).toMatch(/^Built Clamp's page in [2-9]\d* s\.$/);
    // Next's own lines stay out of the launcher's output (they are kept for a failure's report)
    expect(text()).not.toContain('Next.js 16');
    expect(r.output).toContain('Compiled successfully');
  });

  it('on a terminal: one line redrawn with the step and the time', { timeout: 30_000 }, async () => {
    const { out, text } = sink(true);
    const r = await runBuild({ command: fakeBuild([[50, '   Creating an optimized production build ...'], [2200, ' ✓ Compiled successfully in 2.2s']]), out, why: 'first start' });
    expect(r.ok).toBe(true);
    const t = text();
    expect(t).toContain('\r\x1b[2K  compiling the page… 0 s');
    expect(t).toMatch(/\r\x1b\[2K {2}compiling the page… [1-9]\d* s/);
    expect(t).toMatch(/\r\x1b\[2KBuilt Clamp's page in [2-9]\d* s\.\n$/);
  });

  it('a failed build keeps its output for the report; a build that finds Next’s lock taken says nothing of failing', { timeout: 30_000 }, async () => {
    const failed = sink(false);
    const r = await runBuild({ command: fakeBuild([[10, 'Type error: nope']], 1), out: failed.out, why: 'first start' });
    expect(r).toMatchObject({ ok: false, locked: false, output: 'Type error: nope\n' });
    expect(failed.text()).toMatch(/The build failed after \d+ s\.\n$/);
    const locked = sink(false);
    const l = await runBuild({ command: fakeBuild([[10, '⨯ Another next build process is already running.']], 1), out: locked.out, why: 'first start', quietUntilStarted: true });
    expect(l).toMatchObject({ ok: false, locked: true });
    expect(locked.text()).toBe('');
  });
});
