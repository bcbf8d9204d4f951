/**
 * Every cap holds at its boundary: for each tool that fits its own text and note under the exit
 * clamp, the caps around the size of its uncut output give an output within the cap, cut by the
 * tool itself (never by the exit clamp) and with its note whole. The notes are measured, so a cap
 * one byte under the uncut size still gets the note, and a cap at the uncut size gets no cut.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clampResult } from '../../lib/contract/clamp';
import { byteLength } from '../../lib/contract/text';
import type { ToolResult } from '../../lib/contract/types';
import { TaskManager } from '../../lib/tasks/manager';
import { globTool } from '../../lib/tools/glob';
import { grepTool } from '../../lib/tools/grep/grep';
import { readFileTool } from '../../lib/tools/read-file/read-file';
import { skillTool } from '../../lib/tools/skills/skills';
import { gitDiffTool } from '../../lib/tools/git/git-diff';
import { webFetchTool } from '../../lib/tools/web/web-fetch';
import { runCommandTool } from '../../lib/tools/commands/run-command';
import { taskOutputTool } from '../../lib/tools/commands/task-output';
import { harness, tempWorkspace } from '../helpers';

const TOOLS = [globTool, grepTool, readFileTool, skillTool, gitDiffTool, webFetchTool, runCommandTool, taskOutputTool];
let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace('clamp-caps-');
});
afterEach(() => ws.cleanup());

/** Caps from the uncut size down by `below` bytes, and two above it. */
const capsAround = (size: number, below: number) => [size + 1, size, ...Array.from({ length: below }, (_, i) => size - 1 - i)];

/**
 * Call at each cap around the uncut output and check the contract: within the cap; at or above the
 * uncut size the same text; below it a cut by the tool with its note.
 */
async function holdsAtBoundary(call: (cap: number | undefined) => Promise<ToolResult>, note: RegExp, below = 40) {
  const whole = await call(undefined);
  expect(whole.status).toBe('ok');
  expect(whole.truncation).toBeNull();
  const size = byteLength(whole.output);
  for (const cap of capsAround(size, below)) {
    const r = await call(cap);
    expect(byteLength(r.output), `cap ${cap}`).toBeLessThanOrEqual(cap);
    if (cap >= size) {
      expect(r.output, `cap ${cap}`).toBe(whole.output);
      continue;
    }
    expect(r.truncation?.by, `cap ${cap}: cut by the tool, not the exit clamp`).toBe('tool');
    expect(r.output, `cap ${cap}: the note is there`).toMatch(note);
  }
  return size;
}

describe('the caps hold exactly at their boundary', () => {
  it('read_file: the footer with the next offset', async () => {
    ws.write('a.txt', Array.from({ length: 60 }, (_, i) => `line ${i + 1} ${'x'.repeat(i % 7)}`).join('\n') + '\n');
    const h = harness(TOOLS, ws);
    await holdsAtBoundary(
      (cap) => h.call('read_file', { path: 'a.txt', offset: 1 }, cap === undefined ? {} : { budget: { TOOL_OUTPUT_MAX_BYTES: cap } }),
      /\n\(lines 1–\d+ of 60; the output stopped at the result's [\d,]+-byte cap after \d+ of the 60 lines asked for; continue with offset=\d+\)$/,
    );
  });

  it('grep: the counts and the next step', async () => {
    for (let i = 0; i < 20; i++) ws.write(`f${String(i).padStart(2, '0')}.txt`, `needle ${'y'.repeat(i)}\n`);
    const h = harness(TOOLS, ws);
    await holdsAtBoundary(
      (cap) => h.call('grep', { pattern: 'needle' }, cap === undefined ? {} : { budget: { TOOL_OUTPUT_MAX_BYTES: cap } }),
      /\n\n\[Output limit of [\d,]+ bytes reached: showing the first \d+ of 20 matching lines \(sorted by path, then line\)\. All 20 files were searched\. Narrow it with path, include or a more specific pattern, or use output_mode "files_with_matches" to list the matching files\.\]$/,
    );
  });

  it('glob: the total and the next step', async () => {
    for (let i = 0; i < 30; i++) ws.write(`src/d${i % 3}/file-${String(i).padStart(2, '0')}.ts`, '');
    const h = harness(TOOLS, ws);
    await holdsAtBoundary(
      (cap) => h.call('glob', { pattern: '**/*.ts' }, cap === undefined ? {} : { budget: { TOOL_OUTPUT_MAX_BYTES: cap } }),
      /\n\n\[Output limit of [\d,]+ bytes reached: showing the first \d+ of 30 matching files \(sorted by path\)\. Narrow the pattern/,
    );
  });

  it('skill: the body cut with where the rest is', async () => {
    const abs = path.join(ws.dataDir, 'skills', 'big', 'SKILL.md');
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, `---\nname: big\ndescription: A long one.\n---\n\n${Array.from({ length: 40 }, (_, i) => `Step ${i + 1}: do it.`).join('\n')}\n`);
    const h = harness(TOOLS, ws);
    await holdsAtBoundary(
      (cap) => h.call('skill', { name: 'big' }, cap === undefined ? {} : { budget: { TOOL_OUTPUT_MAX_BYTES: cap } }),
      /\n\[Skill body cut at [\d,]+ bytes of [\d,]+ bytes \([\d,]+ bytes, \d+ lines omitted\)\. Read the rest with read_file\(path: ".+", offset: \d+\)\.\]$/,
    );
  });

  it('git_diff: the cut and the full diff file', async () => {
    const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.workspace, encoding: 'utf8', env });
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'Ada Tester');
    git('config', 'user.email', 'ada@example.com');
    ws.write('a.txt', Array.from({ length: 30 }, (_, i) => `row ${i}`).join('\n') + '\n');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'one');
    ws.write('a.txt', Array.from({ length: 30 }, (_, i) => `row ${i} changed`).join('\n') + '\n');
    const h = harness(TOOLS, ws);
    const saved = { GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM: process.env.GIT_CONFIG_NOSYSTEM };
    Object.assign(process.env, { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
    try {
      await holdsAtBoundary(
        (cap) => h.call('git_diff', {}, cap === undefined ? {} : { budget: { TOOL_OUTPUT_MAX_BYTES: cap } }),
        /\n\[Diff cut at [\d,]+ bytes of [\d,]+ bytes \([\d,]+ bytes, \d+ lines omitted\)\. The full diff: .+ — read it with read_file \(offset\/limit\), or narrow it with git_diff\(path\)\.\]$/,
        25,
      );
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('run_command: each stream keeps its note and its log file', async () => {
    const h = harness(TOOLS, ws);
    // the duration line varies by a few bytes between runs ("75 ms", "1.2 s"): caps start a few bytes under the uncut size
    const call = (cap: number | undefined) => h.call('run_command', { command: 'seq 1 2000' }, cap === undefined ? {} : { budget: { TOOL_OUTPUT_MAX_BYTES: cap } });
    const whole = await call(undefined);
    const size = byteLength(whole.output);
    for (const cap of [size - 4, size - 5, size - 12, size - 50, size - 2000, size - 6000]) {
      const r = await call(cap);
      expect(byteLength(r.output), `cap ${cap}`).toBeLessThanOrEqual(cap);
      expect(r.truncation?.by, `cap ${cap}`).toBe('tool');
      expect(r.output).toMatch(/\n\[stdout cut: [\d,]+ bytes of [\d,]+ bytes shown \(the end\); [\d,]+ bytes and [\d,]+ lines omitted\. Full stdout: .+ — read it with read_file \(offset\/limit\) or search it with grep\.\]\nstderr:\n\(empty\)$/);
    }
  });

  it('task_output: the notes are measured on the read before anything is taken', async () => {
    const tasks = new TaskManager(ws.dataDir);
    const h = harness(TOOLS, ws, { services: { tasks } });
    for (const cap of [700, 701, 750, 900]) {
      const id = (await h.call('run_command', { command: 'seq 1 400', background: true })).meta!.taskId as string;
      while (tasks.get(id)!.status === 'running') await new Promise((r) => setTimeout(r, 10));
      const r = await h.call('task_output', { id }, { budget: { TOOL_OUTPUT_MAX_BYTES: cap } });
      expect(byteLength(r.output), `cap ${cap}`).toBeLessThanOrEqual(cap);
      expect(r.truncation?.by, `cap ${cap}`).toBe('tool');
      expect(r.output).toMatch(/\n\[[\d,]+ more bytes of unread stdout; call task_output again to continue\.\]\nstderr \(new since the last read\):\n\(no new output\)\nIt has finished; call task_output again to read the rest\.$/);
      // nothing was lost: the next read continues where this one stopped
      const next = await h.call('task_output', { id }, { budget: { TOOL_OUTPUT_MAX_BYTES: 20_000 } });
      const first = r.output.split('\n').filter((l) => /^\d+$/.test(l));
      const rest = next.output.split('\n').filter((l) => /^\d+$/.test(l));
      expect([...first, ...rest].map(Number)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    }
    await tasks.shutdown();
  });

  it('the exit clamp: ok keeps the head, an error head and tail; the hint survives', () => {
    const text = Array.from({ length: 200 }, (_, i) => `out ${i}`).join('\n');
    const size = byteLength(text);
    for (const status of ['ok', 'error'] as const) {
      for (const cap of capsAround(size, 300)) {
        const r = clampResult({ status, output: text, truncation: null, hint: 'Try a narrower call.' }, cap, ws.dataDir, 'x');
        expect(byteLength(r.output), `${status} cap ${cap}`).toBeLessThanOrEqual(cap);
        if (cap >= size) {
          expect(r.output).toBe(text);
          continue;
        }
        expect(r.output).toMatch(/\n\[Output cut at [\d,]+ bytes of [\d,]+ bytes \([\d,]+ bytes, \d+ lines omitted\)\. Full text: .+ — read it with read_file \(offset\/limit\) or search it with grep\.\]\nTry a narrower call\.$/);
        expect(r.truncation?.by).toBe('exit');
      }
    }
  });
});

describe('web_fetch fits its header and notes with the text', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(Array.from({ length: 200 }, (_, i) => `plain line ${i}`).join('\n'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('under a lowered step cap the text is cut and the note arrives whole', async () => {
    const h = harness(TOOLS, ws);
    for (const cap of [1600, 1601, 1700, 2000, 2500]) {
      const r = await h.call('web_fetch', { url: `${base}/page` }, { budget: { TOOL_OUTPUT_MAX_BYTES: cap } });
      expect(byteLength(r.output), `cap ${cap}`).toBeLessThanOrEqual(cap);
      expect(r.truncation?.by).toBe('tool');
      expect(r.output).toMatch(/\n\[Text cut at [\d,]+ of [\d,]+ bytes \(\d+ of 200 lines shown\)\. The full text is saved at .+: read it with read_file \(offset=\d+ to continue\) or search it with grep\.\]$/);
    }
  });
});
