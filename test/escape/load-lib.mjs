// The lib modules an escape runner (tool-batch.mjs, checkpoint-run.mjs, mcp-run.mjs, lsp-run.mjs) uses, each
// runner's listed in libs/<runner>.ts. They load from a bundle in dist/test-escape/ while it matches every source
// (built once per test run by test/global-setup.ts, as scripts/build-cli.mjs builds the CLI's), else from the
// sources through tsx: a runner starts in a fraction of the time tsx takes to compile lib, and the suite starts
// hundreds of them.
//   node test/escape/load-lib.mjs --build   (builds it, and the CLI's in dist/cli/, when missing or stale)
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshManifest } from '../../bin/pick-entry.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** two levels under the root, as dist/cli: lib code finds the root from where it runs */
const DIST = path.join(ROOT, 'dist', 'test-escape');
const ENTRIES = Object.fromEntries(['tool-batch', 'checkpoint-run', 'mcp-run', 'lsp-run'].map((n) => [n, `test/escape/libs/${n}.ts`]));

/** The runner's lib modules: from the bundle when it is fresh, else the sources. */
export async function loadLib(runner) {
  const file = freshManifest(DIST)?.entries?.[runner];
  if (file) return import(pathToFileURL(path.join(DIST, file)).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(path.join(ROOT, ENTRIES[runner])).href);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv.includes('--build')) {
  const { buildCli } = await import('../../scripts/build-cli.mjs');
  if (!freshManifest()) await buildCli({ quiet: true });
  // not made stale by the build script's mtime, which test/cli/bundle.test.ts moves to make dist/cli/ stale
  if (!freshManifest(DIST)) await buildCli({ quiet: true, entries: ENTRIES, out: DIST, alsoInputs: ['package.json', 'package-lock.json'] });
}
