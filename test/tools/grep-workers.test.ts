import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePattern } from '../../lib/tools/grep/grep';
import { search, type SearchRequest } from '../../lib/tools/grep/engine';
import { globToRegExp } from '../../lib/tools/grep/ignore';
import { tempWorkspace } from '../helpers';

/**
 * The worker threads must give exactly the main thread's answer: the same lines, counts, skips and
 * stop, whatever the pattern, mode, include, caps and odd files. Each query runs three ways: on the
 * main thread only, with the workers taking over at once, and taking over part-way. A search only reads, so
 * the 1,200-file workspace is written once for all the cases.
 */
let ws: ReturnType<typeof tempWorkspace>;
beforeAll(() => {
  ws = tempWorkspace('clamp-grep-workers-');
  for (let i = 0; i < 1200; i++) {
    const hit = i % 41 === 0 ? `x\nneedle ${i}\nmore\r\nNEEDLE again ${i}\n` : i % 97 === 0 ? '\uFEFFneedle after a BOM\n' : 'nothing here\n';
    ws.write(`p${i % 9}/q${i % 4}/f${String(i).padStart(4, '0')}.${i % 3 ? 'ts' : 'md'}`, hit);
  }
  ws.write('p1/big.txt', 'needle '.repeat(200));
  ws.write('p2/bin.dat', 'needle\0binary\n');
  ws.write('p3/empty.ts', '');
  ws.write('.gitignore', 'p4/q1/\n');
  ws.write('p5/locked.ts', 'needle locked\n');
  fs.chmodSync(`${ws.workspace}/p5/locked.ts`, 0);
});
afterAll(() => ws.cleanup());

const run = (over: Partial<SearchRequest>) =>
  search({
    workspace: ws.workspace, startAbs: ws.workspace, startRel: '.', startIsFile: false,
    pattern: compilePattern('needle \\d+', false, false), mode: 'content', context: 0,
    maxEntries: 200, maxOutputBytes: 100_000, maxLineBytes: 240, maxFileBytes: 500, maxFilesVisited: 10_000, sniffBytes: 8192,
    engine: 'builtin', envPath: '', signal: new AbortController().signal, ...over,
  });

describe('grep on worker threads', () => {
  const queries: Array<[string, Partial<SearchRequest>]> = [
    ['regex', {}],
    ['literal', { pattern: compilePattern('needle', true, false) }],
    ['ignore case', { pattern: compilePattern('needle again', true, true) }],
    ['regex ignore case, context', { pattern: compilePattern('NEEDLE \\w+ \\d+', false, true), context: 1 }],
    ['never', { pattern: compilePattern('zzz never', true, false) }],
    ['files mode with include', { mode: 'files_with_matches', include: (rel, _s, name) => globToRegExp('*.ts').test(name) || rel.endsWith('.ts') }],
    ['count mode', { mode: 'count' }],
    ['capped by entries', { maxEntries: 7 }],
    ['capped by bytes', { maxOutputBytes: 300 }],
    ['visit limit', { maxFilesVisited: 700 }],
  ];
  for (const [name, q] of queries) {
    it(`${name}: the same answer as the main thread`, async () => {
      const main = await run({ ...q, workers: false });
      const atOnce = await run({ ...q, workersAfterFiles: 1 });
      const partWay = await run({ ...q, workersAfterFiles: 333 });
      expect(main.engine).toBe('builtin');
      expect(atOnce.engine).toBe('builtin+workers');
      expect({ ...atOnce, engine: 'builtin' }).toEqual(main);
      expect({ ...partWay, engine: 'builtin' }).toEqual(main);
    });
  }

  it('the answers are really there: matches, skips and a stop where one was asked for', async () => {
    const r = await run({ workersAfterFiles: 1 });
    expect(r.matches).toBe(29); // 30 files hold one, one of them in the gitignored p4/q1
    expect(r.oversize.samples).toEqual(['p1/big.txt']);
    expect(r.binary.count).toBe(0); // bin.dat holds "needle" but no "needle <digits>"
    expect(r.unreadable.count).toBe(process.getuid?.() === 0 ? 0 : 1);
    const capped = await run({ workersAfterFiles: 1, maxEntries: 7 });
    expect(capped.stop?.reason).toBe('entries');
    expect(capped.shown).toBe(7);
  });

  it('an abort stops a search on the workers', async () => {
    const ac = new AbortController();
    const p = run({ workersAfterFiles: 1, pattern: compilePattern('zzz never', true, false), signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toThrow('aborted');
  });
});
