import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deniedPaths } from '../../lib/hooks/sandbox-rules';
import { parsePermissionRule, relativeGlobs } from '../../lib/policy/permission-rules';
import { withExcludes } from '../../lib/tools/git/run';

/** What the sandbox hides for Read deny rules: the walk, its bounds, and the git pathspecs (escape/denied-paths.test.ts runs them in bwrap). */

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function workspace(files: string[]): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-deny-')));
  made.push(root);
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), 'x');
  }
  return root;
}

const rule = (text: string, root: string) => parsePermissionRule(text, { roots: [root], home: '/home/nobody' });

describe('deniedPaths', () => {
  it('hides a denied folder whole (not its files one by one), a bare name at any depth, and skips .git', () => {
    const root = workspace(['secrets/a', 'secrets/deep/b', 'src/.env', '.env', 'src/app.ts', '.git/.env']);
    const w = deniedPaths(root, [rule('Read(./secrets/**)', root), rule('Read(.env)', root)]);
    expect(w.hide.sort()).toEqual([path.join(root, '.env'), path.join(root, 'secrets'), path.join(root, 'src/.env')]);
    expect(w.cut).toBeUndefined();
  });

  it('matches a folder in another case, as the file tools do', () => {
    const root = workspace(['Secrets/a']);
    expect(deniedPaths(root, [rule('Read(./secrets/**)', root)]).hide).toEqual([path.join(root, 'Secrets')]);
  });

  it('says so when a bound is hit', () => {
    const root = workspace(['k/1.pem', 'k/2.pem', 'k/3.pem', 'a', 'b', 'c']);
    const few = deniedPaths(root, [rule('Read(**/*.pem)', root)], { entries: 1000, paths: 2 });
    expect(few.hide).toHaveLength(2);
    expect(few.cut).toMatch(/only the first 2 are hidden/);
    const small = deniedPaths(root, [rule('Read(**/*.pem)', root)], { entries: 3, paths: 10 });
    expect(small.cut).toMatch(/more than 3 entries/);
  });
});

describe('git pathspecs', () => {
  it("a rule's pattern relative to the workspace; none for a pattern outside it or with braces", () => {
    const root = '/w';
    expect(relativeGlobs(rule('Read(./secrets/**)', root), root)).toEqual(['secrets/**']);
    expect(relativeGlobs(rule('Read(.env)', root), root)).toEqual(['**/.env']);
    expect(relativeGlobs(rule('Read(//etc/x)', root), root)).toEqual([]);
    expect(relativeGlobs(rule('Read(./{a,b}.key)', root), root)).toEqual([]);
  });

  it('paths given become literal and the excludes follow them; nothing changes without excludes', () => {
    expect(withExcludes(['diff', '--', 'a*.txt'], [':(exclude,literal)secrets'])).toEqual({ args: ['diff', '--', ':(literal)a*.txt', ':(exclude,literal)secrets'], magic: true });
    expect(withExcludes(['status', '--short'], [':(exclude)x'])).toEqual({ args: ['status', '--short', '--', ':(exclude)x'], magic: true });
    expect(withExcludes(['diff', '--', 'a'], [])).toEqual({ args: ['diff', '--', 'a'], magic: false });
  });
});

describe('the walk enters only what a pattern can reach', () => {
  it('./a/secrets/** looks only on the way to a/secrets (in any case); **/x everywhere', () => {
    const root = workspace(['A/Secrets/k', 'a/other/k', 'node_modules/p/secrets/k', 'b/a/secrets/k']);
    expect(deniedPaths(root, [rule('Read(./a/secrets/**)', root)], { entries: 6, paths: 10 })).toEqual({ hide: [path.join(root, 'A/Secrets')] });
    expect(deniedPaths(root, [rule('Read(secrets)', root)]).hide.sort()).toEqual(['A/Secrets', 'b/a/secrets', 'node_modules/p/secrets'].map((p) => path.join(root, p)));
  });
});
