import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceFingerprint } from '../../lib/server/build';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-build-'));
  roots.push(root);
  fs.mkdirSync(path.join(root, 'components'), { recursive: true });
  fs.mkdirSync(path.join(root, 'app'), { recursive: true });
  fs.writeFileSync(path.join(root, 'components/a.tsx'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(root, 'components/b.tsx'), 'export const b = 2;\n');
  fs.writeFileSync(path.join(root, 'package.json'), '{}\n');
  return root;
}

describe("the page build's freshness", () => {
  it('is the same for an unchanged tree and changes with an edit, a deletion, an added file or an older time', () => {
    const root = tree();
    const first = sourceFingerprint(root);
    expect(sourceFingerprint(root)).toBe(first);

    // a file restored with an older time (git checkout of an older version keeps no newer mtime)
    const a = path.join(root, 'components/a.tsx');
    const old = new Date(Date.now() - 86_400_000);
    fs.utimesSync(a, old, old);
    const olderTime = sourceFingerprint(root);
    expect(olderTime).not.toBe(first);

    // a deleted file: the newest time of what is left does not change, the build's input does
    fs.rmSync(path.join(root, 'components/b.tsx'));
    const deleted = sourceFingerprint(root);
    expect(deleted).not.toBe(olderTime);

    fs.writeFileSync(path.join(root, 'app/page.tsx'), 'export default 1;\n');
    expect(sourceFingerprint(root)).not.toBe(deleted);
  });

  it('an edit made while a build runs (before its BUILD_ID is written) still counts as a change', () => {
    const root = tree();
    const startedFrom = sourceFingerprint(root); // what the build recorded when it started
    fs.writeFileSync(path.join(root, 'components/a.tsx'), 'export const a = 3;\n'); // edited mid-build
    fs.mkdirSync(path.join(root, '.next'));
    fs.writeFileSync(path.join(root, '.next/BUILD_ID'), 'x'); // the build ends after the edit
    expect(sourceFingerprint(root)).not.toBe(startedFrom);
  });
});
