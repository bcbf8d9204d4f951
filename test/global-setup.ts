import { spawnSync } from 'node:child_process';
import { ensureBuild, ROOT } from '../lib/server/build';

/**
 * Before any test file: the CLI bundle (dist/cli/) when a source changed since it was built, so every file that
 * spawns the bin scripts (test/escape, test/cli …) runs it from the start instead of each running the sources
 * until a background rebuild lands; and the escape runners' bundle (test/escape/load-lib.mjs). A few seconds,
 * and nothing when both are fresh.
 *
 * Then the page, once, before the test files that start Clamp (test/server, test/e2e, test/adversarial), so they
 * find a fresh build instead of racing each other for Next's build lock. A run filtered to other folders
 * (`vitest run test/tools`) skips it.
 */
export default async function setup(): Promise<void> {
  const built = spawnSync(process.execPath, ['test/escape/load-lib.mjs', '--build'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  // a failed build is not the run's failure: the bin scripts and the runners run the sources then (slower), and a
  // test of what failed to build fails on its own
  if (built.status !== 0) process.stderr.write(`Building the CLI bundles failed (node test/escape/load-lib.mjs --build); the tests run the sources:\n${built.stderr}\n`);
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-') && a !== 'run');
  const needsServer = filters.length === 0 || filters.some((f) => /server|e2e|adversarial/.test(f));
  if (needsServer && !(await ensureBuild())) throw new Error('The page did not build; run `npm run build` to see why.');
}
