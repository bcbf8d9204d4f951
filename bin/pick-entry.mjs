// Which code the bin scripts run: the bundle in dist/cli/ when it is fresh (every source in its manifest
// has the size and mtime it was built from), else the TypeScript sources through tsx. CLAMP_FROM_SOURCES=1
// forces the sources; CLAMP_SAY_ENTRY=1 says on stderr which one ran. A stale bundle is rebuilt in the background for the next start.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist', 'cli');

/** The manifest of the bundle in `dir` when every input still matches it; undefined when it is missing or stale. */
export function freshManifest(dir = DIST) {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return undefined;
  }
  for (const [rel, [size, mtimeMs]] of Object.entries(manifest.inputs ?? {})) {
    let st;
    try {
      st = fs.statSync(path.join(ROOT, rel));
    } catch {
      return undefined;
    }
    if (st.size !== size || st.mtimeMs !== mtimeMs) return undefined;
  }
  return manifest;
}

/** Rebuild the bundle in a detached process (when esbuild is installed); this start goes on from the sources. */
function rebuildInBackground() {
  if (process.env.CLAMP_NO_REBUILD === '1') return;
  try {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'build-cli.mjs'), '--quiet', '--if-idle', '--soft'], { cwd: ROOT, detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // the sources work; the next `npm run build:cli` makes the bundle
  }
}

/** Load an entry module: `name` in the bundle, or `source` (relative to the repository root) through tsx. */
export async function loadEntry(name, source) {
  if (process.env.CLAMP_FROM_SOURCES !== '1') {
    const manifest = freshManifest();
    const file = manifest?.entries?.[name];
    if (file) {
      if (process.env.CLAMP_SAY_ENTRY === '1') process.stderr.write(`clamp: ${name} from the bundle\n`);
      return import(pathToFileURL(path.join(DIST, file)).href);
    }
    rebuildInBackground();
  }
  if (process.env.CLAMP_SAY_ENTRY === '1') process.stderr.write(`clamp: ${name} from the sources\n`);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(path.join(ROOT, source)).href);
}
