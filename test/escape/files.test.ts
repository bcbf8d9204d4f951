import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { CANARY, escape, escapes, toolBatch, type BatchResult, type Host } from './harness';
import { startSwapRacer } from './racer';

/**
 * The file tools against links that lead out of the workspace: a folder or file that is a link out, a link put in
 * place between two calls, and a command that swaps a folder with such a link in a tight loop while the tools run.
 * What is checked is the host: nothing outside the workspace (nor in HOME) changed, no output carries the planted
 * keys' canary, and no listing or search shows a name that only exists outside.
 */

/** Many tool calls in one process as the host's user, through the tool CLI's own path. */
const batch = (host: Host, calls: { name: string; args: unknown }[], mode = 'auto'): Promise<BatchResult[]> => toolBatch(host, calls, mode);

/** Make workspace files and folders owned by the host's user (the harness owns the rest already). */
function own(host: Host, ...rels: string[]): void {
  if (host.uid === 0) return;
  for (const rel of rels) fs.lchownSync(path.join(host.workspace, rel), host.uid, host.uid);
}

const LISTING = new Set(['list_dir', 'glob', 'grep']);

/** The text of an output without the call's own arguments (a refusal or "not found" quotes the path it was given). */
function withoutEchoes(r: BatchResult): string {
  let text = r.output;
  const values = Object.values((r.args ?? {}) as Record<string, unknown>).filter((v): v is string => typeof v === 'string' && v.length > 0);
  for (const v of values.sort((a, b) => b.length - a.length)) text = text.split(v).join('«arg»');
  return text;
}

/**
 * What results show that they must not: the canary anywhere; and a name that exists only outside, in what a
 * listing or search found or in a "did you mean" (the call's own arguments quoted back do not count).
 */
function leaks(host: Host, results: BatchResult[], outsideNames: string[]): string[] {
  const bad: string[] = [];
  for (const r of results) {
    const shown = `${r.name} ${JSON.stringify(r.args)} → ${r.status}: ${r.output.slice(0, 400)}`;
    if (host.leaked(r.output)) bad.push(`canary in ${shown}`);
    else if ((LISTING.has(r.name) || r.output.includes('Did you mean')) && outsideNames.some((n) => withoutEchoes(r).includes(n))) {
      bad.push(`outside name in ${shown}`);
    }
  }
  return bad;
}

/** ws/dir and ws/keys are real folders; ws/dir-link leads to `outside`, ws/keys-link to HOME/.ssh. */
function plantSwapPairs(host: Host): void {
  const ws = host.workspace;
  fs.mkdirSync(path.join(ws, 'dir'));
  fs.writeFileSync(path.join(ws, 'dir', 'inside.txt'), 'inside\n');
  fs.mkdirSync(path.join(ws, 'keys'));
  fs.writeFileSync(path.join(ws, 'keys', 'known.txt'), 'not a key\n');
  fs.symlinkSync(host.outside, path.join(ws, 'dir-link'));
  fs.symlinkSync(path.join(host.home, '.ssh'), path.join(ws, 'keys-link'));
  own(host, 'dir', 'dir/inside.txt', 'keys', 'keys/known.txt', 'dir-link', 'keys-link');
}

/** One round of calls at the swapped names: writes that would land outside, reads that would return a key, listings. */
function round(i: number): { name: string; args: unknown }[] {
  return [
    { name: 'write_file', args: { path: `dir/w${i}.txt`, content: 'written by clamp\n' } },
    { name: 'read_file', args: { path: 'keys/id_rsa' } },
    { name: 'edit_file', args: { path: 'dir/keep.txt', old_string: 'outside', new_string: 'edited by clamp' } },
    { name: 'list_dir', args: { path: 'dir' } },
    { name: 'apply_patch', args: { patch: `*** Begin Patch\n*** Add File: dir/p${i}.txt\n+patched by clamp\n*** End Patch` } },
    { name: 'glob', args: { pattern: i % 2 ? 'dir/*' : 'keys/*' } },
    { name: 'read_file', args: { path: 'dir/keep.txt' } },
    { name: 'grep', args: i % 2 ? { pattern: 'outside', path: 'dir' } : { pattern: 'secret' } },
    { name: 'write_file', args: { path: `keys/authorized_keys${i}`, content: 'ssh-ed25519 AAAA clamp\n' } },
    { name: 'list_dir', args: { path: 'keys' } },
    { name: 'edit_file', args: { path: 'dir/new.txt', old_string: '', new_string: `created by clamp ${i}\n` } },
    { name: 'glob', args: { pattern: '**/*.txt' } },
  ];
}

escapes('file tools', () => {
  escape(
    {
      tries: 'a command swaps ws/dir with a link to `outside` and ws/keys with a link to HOME/.ssh in a tight loop (renameat2 RENAME_EXCHANGE) while 240 write_file, edit_file, apply_patch, read_file, list_dir, glob and grep calls (and a few through the tool CLI) use paths below them',
      checks: 'nothing in outside or HOME was created or changed, no output carries the canary, no listing or search shows keep.txt or id_rsa (names that exist only outside)',
      timeoutMs: 240_000,
    },
    async (host) => {
      plantSwapPairs(host);
      const racer = startSwapRacer(host, [['dir', 'dir-link'], ['keys', 'keys-link']]);
      let results: BatchResult[];
      let swaps: number;
      try {
        const calls = Array.from({ length: 20 }, (_, i) => round(i)).flat();
        const [batched, ...cli] = await Promise.all([
          batch(host, calls),
          host.tool('read_file', { path: 'keys/id_rsa' }),
          host.tool('write_file', { path: 'dir/cli.txt', content: 'written through the CLI\n' }),
          host.tool('grep', { pattern: 'secret' }),
        ]);
        results = [...batched, ...cli.map((r, k) => ({ name: ['read_file', 'write_file', 'grep'][k], args: {}, status: r.status, output: r.output }))];
      } finally {
        swaps = await racer.stop();
      }
      // the race was real: the names were exchanged many times while the calls ran
      expect(swaps).toBeGreaterThan(1000);
      expect(results.length).toBe(243);
      expect(leaks(host, results, ['keep.txt', 'id_rsa'])).toEqual([]);
      expect(host.outsideTouched()).toEqual([]);
      // the calls did their work inside whenever the folder was where it was checked
      expect(results.filter((r) => r.name === 'write_file' && r.status === 'ok').length).toBeGreaterThan(0);
    },
  );

  escape(
    {
      tries: 'folders that are links out of the workspace (ws/out → outside, ws/sshdir → HOME/.ssh): list, glob (walked and literal patterns), grep, read, write, edit and near-name suggestions through them',
      checks: 'nothing outside or in HOME changed, no output carries the canary, no listing, search or "did you mean" names keep.txt or id_rsa',
    },
    async (host) => {
      const ws = host.workspace;
      fs.symlinkSync(host.outside, path.join(ws, 'out'));
      fs.symlinkSync(path.join(host.home, '.ssh'), path.join(ws, 'sshdir'));
      fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
      own(host, 'out', 'sshdir', 'a.txt');
      const results = await batch(host, [
        { name: 'list_dir', args: { path: 'out' } },
        { name: 'list_dir', args: { path: '.' } },
        { name: 'glob', args: { pattern: 'out/*' } },
        { name: 'glob', args: { pattern: 'out/keep.txt' } },
        { name: 'glob', args: { pattern: 'sshdir/id_rsa' } },
        { name: 'glob', args: { pattern: '**/*' } },
        { name: 'grep', args: { pattern: 'secret' } },
        { name: 'grep', args: { pattern: 'outside' } },
        { name: 'grep', args: { pattern: 'secret', path: 'sshdir' } },
        { name: 'read_file', args: { path: 'sshdir/id_rsa' } },
        { name: 'read_file', args: { path: 'sshdri/id_rs' } },
        { name: 'read_file', args: { path: 'ot/keep.tx' } },
        { name: 'edit_file', args: { path: 'ot/kep.txt', old_string: 'a', new_string: 'b' } },
        { name: 'write_file', args: { path: 'out/new.txt', content: 'x\n' } },
        { name: 'edit_file', args: { path: 'out/keep.txt', old_string: 'outside', new_string: 'edited' } },
        { name: 'apply_patch', args: { patch: '*** Begin Patch\n*** Add File: sshdir/authorized_keys\n+ssh-ed25519 AAAA\n*** End Patch' } },
      ]);
      const of = (name: string, args: unknown) => results.find((r) => r.name === name && JSON.stringify(r.args) === JSON.stringify(args))!.output;
      // the links themselves are listed, as links
      expect(of('list_dir', { path: '.' })).toContain('out/ -> ');
      // a literal pattern through a link finds nothing (the names are echoed back, so leaks() cannot tell)
      expect(of('glob', { pattern: 'out/keep.txt' })).toMatch(/^No files match/);
      expect(of('glob', { pattern: 'sshdir/id_rsa' })).toMatch(/^No files match/);
      expect(leaks(host, results, ['keep.txt', 'id_rsa'])).toEqual([]);
      expect(host.outsideTouched()).toEqual([]);
    },
  );

  escape(
    {
      tries: 'files that are links out of the workspace (ws/key.txt → HOME/.ssh/id_rsa, ws/keep.txt → outside/keep.txt): read, grep, glob, edit, write and patch them',
      checks: 'nothing outside or in HOME changed and no output carries the canary',
    },
    async (host) => {
      const ws = host.workspace;
      fs.symlinkSync(path.join(host.home, '.ssh', 'id_rsa'), path.join(ws, 'key.txt'));
      fs.symlinkSync(path.join(host.outside, 'keep.txt'), path.join(ws, 'keep.txt'));
      own(host, 'key.txt', 'keep.txt');
      const results = await batch(host, [
        { name: 'read_file', args: { path: 'key.txt' } },
        { name: 'grep', args: { pattern: 'secret' } },
        { name: 'grep', args: { pattern: 'secret', path: 'key.txt' } },
        { name: 'glob', args: { pattern: 'key.txt' } },
        { name: 'edit_file', args: { path: 'keep.txt', old_string: 'outside', new_string: 'edited' } },
        { name: 'write_file', args: { path: 'keep.txt', content: 'replaced\n' } },
        { name: 'apply_patch', args: { patch: '*** Begin Patch\n*** Update File: keep.txt\n@@\n-outside\n+patched\n*** End Patch' } },
        { name: 'apply_patch', args: { patch: '*** Begin Patch\n*** Delete File: key.txt\n*** End Patch' } },
      ]);
      expect(leaks(host, results, [])).toEqual([]);
      expect(host.outsideTouched()).toEqual([]);
      expect(fs.lstatSync(path.join(ws, 'key.txt')).isSymbolicLink()).toBe(true);
    },
  );

  escape(
    {
      tries: 'a folder listed by one call is replaced by a link out (ws/dir → outside, then HOME/.ssh) before the next calls, through the tool CLI',
      checks: 'nothing outside or in HOME changed, no output carries the canary or names keep.txt or id_rsa from outside',
      timeoutMs: 180_000,
    },
    async (host) => {
      const ws = host.workspace;
      fs.mkdirSync(path.join(ws, 'dir'));
      fs.writeFileSync(path.join(ws, 'dir', 'inside.txt'), 'inside\n');
      own(host, 'dir', 'dir/inside.txt');
      const first = await host.tool('list_dir', { path: 'dir' });
      expect(first.output).toContain('inside.txt');
      fs.renameSync(path.join(ws, 'dir'), path.join(ws, 'dir.real'));
      fs.symlinkSync(host.outside, path.join(ws, 'dir'));
      own(host, 'dir');
      const out: BatchResult[] = [];
      for (const [name, args] of [
        ['read_file', { path: 'dir/keep.txt' }],
        ['write_file', { path: 'dir/new.txt', content: 'x\n' }],
        ['glob', { pattern: 'dir/*' }],
        ['grep', { pattern: 'outside', path: 'dir' }],
      ] as const) {
        const r = await host.tool(name, args);
        out.push({ name, args, status: r.status, output: r.output });
      }
      fs.unlinkSync(path.join(ws, 'dir'));
      fs.symlinkSync(path.join(host.home, '.ssh'), path.join(ws, 'dir'));
      own(host, 'dir');
      const r = await host.tool('read_file', { path: 'dir/id_rsa' });
      out.push({ name: 'read_file', args: {}, status: r.status, output: r.output });
      expect(out.filter((x) => x.name === 'read_file').every((x) => x.status === 'denied')).toBe(true);
      expect(leaks(host, out, ['keep.txt', 'id_rsa'])).toEqual([]);
      expect(host.outsideTouched()).toEqual([]);
      expect(CANARY.length).toBeGreaterThan(0);
    },
  );
});
