import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * ARCHITECTURE.md and README.md name files in backticks: `lib/agent/run-turn.ts`, or `rpc.ts` in a sentence about its
 * folder. A name that no longer exists is a map that lies, so every one must name a file of the repository: a path
 * from the root, or the end of one (`context/prune.ts`), or a file's name.
 */
const ROOT = path.resolve(__dirname, '../..');
const SOURCE = /\.(tsx?|mjs|cjs|js)$/;

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\n').filter(Boolean).filter((f) => fs.existsSync(path.join(ROOT, f)));
}

/** The source-file names a Markdown text puts in backticks (no globs, no commands, no URLs, no @-mentions). */
export function namedSources(markdown: string): string[] {
  const names = new Set<string>();
  for (const m of markdown.matchAll(/`([^`\s]+)`/g)) {
    const name = m[1].replace(/^\.\//, '').replace(/[.,:;]$/, '');
    if (SOURCE.test(name) && !name.startsWith('@') && !/[*?<>{}$]|:\/\//.test(name)) names.add(name);
  }
  return [...names];
}

function missing(names: string[], files: string[]): string[] {
  return names.filter((n) => !files.some((f) => f === n || f.endsWith('/' + n)));
}

describe('the docs name files that exist', () => {
  const files = trackedFiles();

  for (const doc of ['ARCHITECTURE.md', 'README.md']) {
    it(`every source file ${doc} names exists`, () => {
      const names = namedSources(fs.readFileSync(path.join(ROOT, doc), 'utf8'));
      expect(names.length).toBeGreaterThan(doc === 'ARCHITECTURE.md' ? 100 : 0);
      expect(missing(names, files)).toEqual([]);
    });
  }

  it('a name that is gone is reported', () => {
    const names = namedSources('`lib/agent/run-turn.ts` calls `gone-away.ts`; `context/prune.ts`, `npm test`, `lib/**/*.ts`');
    expect(names).toEqual(['lib/agent/run-turn.ts', 'gone-away.ts', 'context/prune.ts']);
    expect(missing(names, files)).toEqual(['gone-away.ts']);
  });
});
