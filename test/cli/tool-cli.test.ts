import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { tempWorkspace } from '../helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeAll(() => {
  ws = tempWorkspace();
  ws.write('hello.txt', 'one\ntwo\n');
});
afterAll(() => ws.cleanup());

function tool(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync('npm', ['run', '-s', 'tool', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, CLAMP_WORKSPACE: ws.workspace, CLAMP_DATA_DIR: ws.dataDir, CLAMP_MODE: 'default', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('npm run tool', () => {
  it('runs a tool through dispatch and prints one ToolResult as JSON', () => {
    const r = tool(['read_file', '{"path":"hello.txt"}']);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(1);
    const res = JSON.parse(lines[0]);
    expect(res).toMatchObject({ status: 'ok', truncation: null });
    expect(res.output).toContain('1\tone');
  });
  it('exits 0 whatever the tool status, with the error text for the model', () => {
    const r = tool(['read_file', '{"path":"helo.txt"}']);
    expect(r.code).toBe(0);
    const res = JSON.parse(r.out);
    expect(res.status).toBe('error');
    expect(res.output).toMatch(/^File not found: helo\.txt\. Did you mean hello\.txt\?/);
    const unknown = JSON.parse(tool(['cat_file', '{}']).out);
    expect(unknown.output).toMatch(/^Unknown tool `cat_file`\. Available: read_file, list_dir/);
  });
  it('returns approval-required for a write in default mode unless --approve is given', () => {
    const r = JSON.parse(tool(['write_file', '{"path":"new.txt","content":"x\\n"}']).out);
    expect(r.status).toBe('approval-required');
    expect(fs.existsSync(path.join(ws.workspace, 'new.txt'))).toBe(false);
    const ok = JSON.parse(tool(['write_file', '{"path":"new.txt","content":"x\\n"}', '--approve']).out);
    expect(ok.status).toBe('ok');
    expect(ws.read('new.txt')).toBe('x\n');
    const plan = JSON.parse(tool(['write_file', '{"path":"new2.txt","content":"x"}', '--approve'], { CLAMP_MODE: 'plan' }).out);
    expect(plan.status).toBe('denied');
  });
  it('--list prints a readable table with descriptions; --json the same for scripts', () => {
    const r = tool(['--list']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^\d+ tools; \d+ offered in default mode \(CLAMP_MODE\)\. Run one: npm run -s tool -- <tool> '<json args>'$/);
    expect(lines[2]).toMatch(/^tool +effect +offered +what it does$/);
    expect(r.out).toMatch(/\nread_file +read +yes +Read a text file, one window at a time\.\n/);
    expect(r.out).toMatch(/\nrun_command +system +yes +Run a shell command/);
    const plan = tool(['--list', '--json'], { CLAMP_MODE: 'plan' });
    const rows = JSON.parse(plan.out) as Array<{ name: string; effect: string; offered: boolean; summary: string; description: string }>;
    expect(rows.find((t) => t.name === 'read_file')).toMatchObject({ effect: 'read', offered: true, summary: 'Read a text file, one window at a time.' });
    expect(rows.find((t) => t.name === 'write_file')).toMatchObject({ effect: 'write', offered: false });
    expect(rows.find((t) => t.name === 'grep')?.summary).toMatch(/^Search file contents .*\)\.$/);
    expect(tool(['read_file', '{}', '--json']).code).toBe(2);
  });
  it('exits 2 only when the command itself is misused', () => {
    expect(tool([]).code).toBe(2);
    const bad = tool(['read_file', '{not json']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/not valid JSON/);
    expect(tool(['read_file', '{}', '--frobnicate']).code).toBe(2);
    const mode = tool(['read_file', '{}'], { CLAMP_MODE: 'yolo' });
    expect(mode.code).toBe(2);
    expect(mode.err).toMatch(/CLAMP_MODE=yolo is not a permission mode\. Use one of: default, accept-edits, plan, debug, auto\./);
  });
});
