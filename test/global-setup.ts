import { ensureBuild } from '../lib/server/build';

/**
 * Build the page once before the test files that start Clamp (test/server, test/e2e, test/adversarial),
 * so they find a fresh build instead of racing each other for Next's build lock. A run filtered to
 * other folders (`vitest run test/tools`) skips it.
 */
export default async function setup(): Promise<void> {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-') && a !== 'run');
  const needsServer = filters.length === 0 || filters.some((f) => /server|e2e|adversarial/.test(f));
  if (needsServer && !(await ensureBuild())) throw new Error('The page did not build; run `npm run build` to see why.');
}
