import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_TOOLS } from '../../lib/dispatch/all-tools';
import { createRegistry } from '../../lib/dispatch/registry';
import { createContext } from '../../lib/dispatch/context';
import { dispatch } from '../../lib/dispatch/dispatch';
import type { PermissionMode, ToolResult } from '../../lib/contract/types';
import { tempWorkspace } from '../helpers';

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY_STRINGS = [
  '',
  ' ',
  '../',
  '../../etc/passwd',
  '/etc/passwd',
  '/',
  '~',
  '~/.ssh/id_rsa',
  'link-out/escape.txt',
  'link-out',
  '.git/config',
  '.git/hooks/pre-commit',
  'a\u0000b',
  '\u0000',
  'ok.txt',
  'sub/ok.txt',
  'new/deep/file.txt',
  '中文/文件.txt',
  '\u202e\u0007\u001b[31m',
  '😀'.repeat(50),
  '%2e%2e/%2e%2e/x',
  '..\\..\\x',
  'C:\\Windows',
  '*',
  '**/*',
  '[',
  '(?<',
  '$&$$',
  '*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch',
  '*** Begin Patch\n*** Add File: link-out/evil.txt\n+x\n*** End Patch',
  '*** Begin Patch\n*** Update File: ok.txt\n*** Move to: ../moved.txt\n@@\n-hello\n+bye\n*** End Patch',
  'x'.repeat(100_000),
];

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 10);
  switch (k) {
    case 0:
      return NASTY_STRINGS[Math.floor(r() * NASTY_STRINGS.length)];
    case 1:
      return Math.floor((r() - 0.5) * 2 ** (r() * 60));
    case 2:
      return [NaN, Infinity, -1, 0, 1.5, 1e308, -0][Math.floor(r() * 7)];
    case 3:
      return r() < 0.5;
    case 4:
      return null;
    case 5:
      return undefined;
    case 6:
      return depth > 2 ? [] : Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    case 7:
      return depth > 2 ? {} : { [NASTY_STRINGS[Math.floor(r() * NASTY_STRINGS.length)].slice(0, 20)]: randomValue(r, depth + 1) };
    default:
      return Array.from({ length: Math.floor(r() * 30) }, () => String.fromCharCode(Math.floor(r() * 0x3000))).join('');
  }
}

type Props = Record<string, { type?: string }>;

/** A value of the declared type most of the time (so calls get past validation), anything otherwise. */
function typedValue(r: () => number, type: string | undefined): unknown {
  if (r() < 0.25) return randomValue(r);
  if (type === 'string') return NASTY_STRINGS[Math.floor(r() * NASTY_STRINGS.length)];
  if (type === 'integer' || type === 'number') return Math.floor(r() * [3, 100, 10_000, 1e9][Math.floor(r() * 4)]);
  if (type === 'boolean') return r() < 0.5;
  return randomValue(r);
}

/** Random arguments shaped like the tool's schema (right keys, mostly right types, nasty values), or plain junk. */
function randomArgs(r: () => number, props: Props): unknown {
  const keys = Object.keys(props);
  const roll = r();
  if (roll < 0.05) return randomValue(r);
  if (roll < 0.08) return JSON.stringify({ [keys[0] ?? 'x']: randomValue(r) }).slice(0, Math.floor(r() * 40));
  const args: Record<string, unknown> = {};
  for (const key of keys) if (r() < 0.85) args[key] = typedValue(r, props[key]?.type);
  if (r() < 0.1) args.__proto__ = { polluted: true };
  if (r() < 0.1) args['constructor'] = 'x';
  return args;
}

/** The tools whose every valid call starts git in the sandbox. */
const SPAWNS_GIT = new Set(['git_status', 'git_diff', 'git_log']);

const isResult = z.object({
  status: z.enum(['ok', 'error', 'denied', 'approval-required']),
  output: z.string(),
  truncation: z.union([
    z.null(),
    z.object({ unit: z.string(), shown: z.number(), total: z.number(), by: z.enum(['tool', 'exit', 'turn']) }).loose(),
  ]),
  hint: z.string().optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
});

function snapshotTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isSymbolicLink()) out.push(`L ${p}`);
      else if (e.isDirectory()) {
        out.push(`D ${p}`);
        walk(p);
      } else out.push(`F ${p} ${fs.statSync(p).size} ${fs.statSync(p).mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

let ws: ReturnType<typeof tempWorkspace>;
let outside: string;
beforeAll(() => {
  ws = tempWorkspace('clamp-fuzz-');
  outside = path.join(ws.root, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'do not touch');
  ws.write('ok.txt', 'hello\n');
  ws.write('sub/ok.txt', 'hello\n');
  fs.mkdirSync(path.join(ws.workspace, '.git'));
  fs.writeFileSync(path.join(ws.workspace, '.git', 'config'), '[core]\n');
  fs.symlinkSync(outside, path.join(ws.workspace, 'link-out'));
});
afterAll(() => ws.cleanup());

describe('dispatch under 10,000 random and malformed calls', () => {
  it('never throws, never writes outside the workspace or into .git, and always returns a valid ToolResult', { timeout: 300_000 }, async () => {
    // network tools are left out: random URLs must not leave this machine
    const tools = ALL_TOOLS.filter((t) => !t.name.startsWith('web_'));
    const reg = createRegistry(tools);
    const names: string[] = [...tools.map((t) => t.name), 'no_such_tool', '__proto__', 'constructor', 'toString', ''];
    const propsOf = new Map<string, Props>(tools.map((t) => [t.name, ((z.toJSONSchema(t.schema) as { properties?: Props }).properties ?? {}) as Props]));
    const before = snapshotTree(outside);
    const gitBefore = snapshotTree(path.join(ws.workspace, '.git'));
    const r = rng(20261129);
    const modes: PermissionMode[] = ['default', 'plan', 'accept-edits', 'debug'];
    const counts: Record<string, number> = {};
    // git_status, git_diff and git_log start a sandboxed git for every call that passes validation, and each fails
    // the same way here (the workspace's .git holds only a config): ~57 ms a call; their ~1,000 calls took 58 s of 62.
    // Each takes GIT_CALLS calls; the rest of the 10,000 go to the other tools (the seed's draw is repeated).
    const GIT_CALLS = 150;
    const drawn: Record<string, number> = {};
    for (let i = 0; i < 10_000; i++) {
      let name = names[Math.floor(r() * names.length)];
      while (SPAWNS_GIT.has(name) && (drawn[name] ?? 0) >= GIT_CALLS) name = names[Math.floor(r() * names.length)];
      drawn[name] = (drawn[name] ?? 0) + 1;
      const args = randomArgs(r, propsOf.get(name) ?? { path: { type: 'string' } });
      const mode = modes[Math.floor(r() * modes.length)];
      const ctx = createContext({ workspace: ws.workspace, dataDir: ws.dataDir, mode, budget: { COMMAND_TIMEOUT_DEFAULT_MS: 2000 } });
      let result: ToolResult;
      try {
        // commands are never approved here: only those command safety judges read-only run
        result = await dispatch(reg, name, args, ctx, {});
      } catch (err) {
        throw new Error(`dispatch threw on call ${i} (${name} ${JSON.stringify(args)?.slice(0, 200)}): ${String(err)}`);
      }
      const parsed = isResult.safeParse(result);
      if (!parsed.success) throw new Error(`call ${i} (${name}) returned an invalid ToolResult: ${JSON.stringify(result).slice(0, 300)}`);
      expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(ctx.budget.TOOL_OUTPUT_MAX_BYTES);
      counts[result.status] = (counts[result.status] ?? 0) + 1;
    }
    expect(snapshotTree(outside)).toEqual(before);
    expect(snapshotTree(path.join(ws.workspace, '.git'))).toEqual(gitBefore);
    expect(fs.readdirSync(ws.root).sort()).toEqual(['data', 'outside', 'ws']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // the fuzz reached every outcome, so it exercised more than validation
    expect(Object.keys(counts).sort()).toEqual(['approval-required', 'denied', 'error', 'ok']);
    for (const name of SPAWNS_GIT) expect(drawn[name], name).toBe(GIT_CALLS);
  });
});
