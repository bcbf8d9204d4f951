import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry } from '../../lib/dispatch/registry';
import { defineTool } from '../../lib/contract/types';
import { ToolError, type ToolDefinition } from '../../lib/contract/types';
import { harness, tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
let ioCalls = 0;

const echo = defineTool({
  name: 'echo_text',
  effect: 'read',
  schema: z.object({ text: z.string(), times: z.number().int().positive().optional() }),
  nonEmpty: ['text'],
  describe: () => 'Echoes text.',
  summary: (i) => i.text,
  async run(input) {
    ioCalls++;
    return { output: input.text.repeat(input.times ?? 1) };
  },
});
const touch = defineTool({
  name: 'touch_file',
  effect: 'write',
  schema: z.object({ path: z.string() }),
  nonEmpty: ['path'],
  paths: (i) => [{ path: i.path, access: 'write', field: 'path' }],
  describe: () => 'Creates an empty file.',
  summary: (i) => i.path,
  async run(input, ctx) {
    ioCalls++;
    fs.writeFileSync(path.join(ctx.workspace, input.path), '');
    return { output: `created ${input.path}` };
  },
});
const failing = defineTool({
  name: 'fail_loudly',
  effect: 'read',
  schema: z.object({ kind: z.enum(['tool', 'enoent', 'huge']) }),
  describe: () => 'Fails.',
  summary: (i) => i.kind,
  async run(input) {
    if (input.kind === 'tool') throw new ToolError('It broke.', 'Try again with kind=enoent.');
    if (input.kind === 'huge') throw new ToolError('E'.repeat(50_000) + ' the real error is here');
    const e = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT', path: 'missing.txt' });
    throw e;
  },
});

beforeEach(() => {
  ws = tempWorkspace();
  ioCalls = 0;
});
afterEach(() => ws.cleanup());

describe('registry', () => {
  it('refuses a tool without a side-effect class', () => {
    const bad = { ...echo, effect: undefined } as unknown as ToolDefinition;
    expect(() => createRegistry([bad])).toThrow(/no side-effect class/);
    const wrong = { ...echo, effect: 'readonly' } as unknown as ToolDefinition;
    expect(() => createRegistry([wrong])).toThrow(/no side-effect class/);
  });
  it('refuses duplicates', () => {
    expect(() => createRegistry([echo, echo])).toThrow(/registered twice/);
  });
});

describe('dispatch', () => {
  it('answers an unknown tool with the list of available ones', async () => {
    const h = harness([echo, touch], ws);
    const r = await h.call('cat_file', {});
    expect(r).toEqual({ status: 'error', output: 'Unknown tool `cat_file`. Available: echo_text, touch_file.', truncation: null });
  });
  it('never resolves inherited properties as tools', async () => {
    const h = harness([echo], ws);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const r = await h.call(name, {});
      expect(r.status).toBe('error');
      expect(r.output).toMatch(/^Unknown tool/);
    }
  });
  it('validates before any I/O and names the field and what was expected', async () => {
    const h = harness([echo], ws);
    const r = await h.call('echo_text', { times: 'two' });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      'Invalid arguments for echo_text:\n- `text`: expected string, got nothing (the field is missing)\n- `times`: expected number, got the string "two"\nFix the arguments and call echo_text again.',
    );
    expect(ioCalls).toBe(0);
  });
  it('guards empty strings before any I/O', async () => {
    const h = harness([echo], ws);
    const r = await h.call('echo_text', { text: '  ' });
    expect(r.output).toBe('Invalid arguments for echo_text:\n- `text`: must not be empty.\nPass a non-empty text and call echo_text again.');
    expect(ioCalls).toBe(0);
  });
  it('accepts arguments as a JSON string and explains invalid JSON', async () => {
    const h = harness([echo], ws);
    expect((await h.call('echo_text', '{"text":"hi"}')).output).toBe('hi');
    expect((await h.call('echo_text', '{"text":')).output).toBe(
      "Invalid arguments for echo_text: they are not valid JSON. Send a JSON object matching the tool's schema.",
    );
  });
  it('refuses paths that escape the workspace, by ../ or by symlink, before running', async () => {
    const h = harness([touch], ws);
    const r1 = await h.call('touch_file', { path: '../outside.txt' });
    expect(r1.status).toBe('denied');
    expect(r1.output).toBe(
      `Path is outside the workspace: ../outside.txt. Only paths inside ${ws.workspace} can be used; pass a path relative to the workspace root.`,
    );
    fs.symlinkSync(ws.root, path.join(ws.workspace, 'link'));
    const r2 = await h.call('touch_file', { path: 'link/escape.txt' });
    expect(r2.status).toBe('denied');
    expect(r2.output).toContain('through a symlink, it resolves to');
    const r3 = await h.call('touch_file', { path: '/etc/passwd' });
    expect(r3.status).toBe('denied');
    expect(ioCalls).toBe(0);
    expect(fs.existsSync(path.join(ws.root, 'escape.txt'))).toBe(false);
  });
  it('refuses writes into .git/', async () => {
    fs.mkdirSync(path.join(ws.workspace, '.git'));
    const h = harness([touch], ws);
    const r = await h.call('touch_file', { path: '.git/config' });
    expect(r.status).toBe('denied');
    expect(r.output).toBe('Writes into .git/ are refused: .git/config. Change the repository through git commands (run_command or git tools) instead.');
  });
  it('asks for approval of a write in default mode unless approved', async () => {
    const h = harness([touch], ws);
    const r = await h.call('touch_file', { path: 'a.txt' }, {}, {});
    expect(r.status).toBe('approval-required');
    expect(r.output).toBe("touch_file needs the user's approval: changes files in the workspace.");
    expect(ioCalls).toBe(0);
    const ok = await h.call('touch_file', { path: 'a.txt' }, {}, { approver: { approved: true } });
    expect(ok.status).toBe('ok');
    const auto = await h.call('touch_file', { path: 'b.txt' }, { mode: 'accept-edits' }, {});
    expect(auto.status).toBe('ok');
  });
  it('refuses a write in plan mode even when called anyway', async () => {
    const h = harness([echo, touch], ws);
    const r = await h.call('touch_file', { path: 'a.txt' }, { mode: 'plan' });
    expect(r.status).toBe('denied');
    expect(r.output).toBe(
      'touch_file is not available: file changes are not allowed in plan mode. Do not retry it; use the read-only tools, or ask the user to switch modes.',
    );
    const unknown = await h.call('nope', {}, { mode: 'plan' });
    expect(unknown.output).toBe('Unknown tool `nope`. Available: echo_text.');
  });
  it('turns thrown errors into results with a next step, never a raw ENOENT', async () => {
    const h = harness([failing], ws);
    const t = await h.call('fail_loudly', { kind: 'tool' });
    expect(t).toEqual({ status: 'error', output: 'It broke.', truncation: null, hint: 'Try again with kind=enoent.' });
    const e = await h.call('fail_loudly', { kind: 'enoent' });
    expect(e.output).toBe('Not found: missing.txt. Check the path with list_dir or glob.');
  });
  it('clamps error results too, keeping head and tail, and spills the full text', async () => {
    const h = harness([failing], ws);
    const r = await h.call('fail_loudly', { kind: 'huge' });
    expect(r.status).toBe('error');
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(20_000);
    expect(r.output).toContain('the real error is here');
    expect(r.truncation).toMatchObject({ unit: 'bytes', total: 50_023, by: 'exit' });
    expect(fs.readFileSync(r.truncation!.spillPath!, 'utf8')).toHaveLength(50_023);
    expect(r.output).toMatch(/\[Output cut at [\d.]+ KB of 48\.9 KB \([\d,]+ bytes, 0 lines omitted\)\. Full text: .+ — read it with read_file \(offset\/limit\) or search it with grep\.\]$/);
  });
  it('clamps at the exact cap: a result of exactly the cap is not cut', async () => {
    const h = harness([echo], ws, { budget: { TOOL_OUTPUT_MAX_BYTES: 1000 } });
    const exact = await h.call('echo_text', { text: 'x', times: 1000 });
    expect(exact.truncation).toBeNull();
    expect(exact.output).toHaveLength(1000);
    const over = await h.call('echo_text', { text: 'x', times: 1001 });
    expect(over.truncation).toMatchObject({ shown: expect.any(Number), total: 1001 });
    expect(Buffer.byteLength(over.output)).toBeLessThanOrEqual(1000);
  });
  it('reports a stopped turn without running the tool', async () => {
    const h = harness([echo], ws);
    const ac = new AbortController();
    ac.abort();
    const r = await h.call('echo_text', { text: 'x' }, { signal: ac.signal });
    expect(r.output).toBe('echo_text was not run: the turn was stopped by the user.');
    expect(ioCalls).toBe(0);
  });
});
