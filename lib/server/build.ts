import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The folder Clamp itself lives in (not the workspace). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE_DIRS = ['app', 'lib', 'components', 'public'];
const SOURCE_FILES = ['next.config.mjs', 'package.json', 'postcss.config.mjs', 'tsconfig.json'];

function newestSourceMtime(): number {
  let newest = 0;
  const visit = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p)) visit(path.join(p, name));
    } else if (st.mtimeMs > newest) newest = st.mtimeMs;
  };
  for (const d of SOURCE_DIRS) visit(path.join(ROOT, d));
  for (const f of SOURCE_FILES) visit(path.join(ROOT, f));
  return newest;
}

/** Build the page (returns false when the build failed) when there is no build or the sources changed since the last one. */
export function ensureBuild(force = false): boolean {
  const buildId = path.join(ROOT, '.next', 'BUILD_ID');
  let builtAt = 0;
  try {
    builtAt = fs.statSync(buildId).mtimeMs;
  } catch {
    builtAt = 0;
  }
  if (!force && builtAt > 0 && builtAt >= newestSourceMtime()) return true;
  process.stdout.write(builtAt ? 'Sources changed since the last build; rebuilding Clamp…\n' : 'Building Clamp (first start, about a minute)…\n');
  // another build of the same folder (a second launcher, a test run) holds Next's lock: wait for it
  for (let attempt = 1; ; attempt++) {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'build'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const out = `${r.stdout?.toString() ?? ''}${r.stderr?.toString() ?? ''}`;
    if (r.status === 0) return true;
    if (attempt < 6 && /Another next build process is already running/.test(out)) {
      process.stdout.write('Another build of Clamp is running; waiting for it…\n');
      spawnSync('sleep', ['15']);
      continue;
    }
    process.stderr.write(out);
    return false;
  }
}

