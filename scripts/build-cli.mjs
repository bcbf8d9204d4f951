#!/usr/bin/env node
// Builds Clamp's command-line entry points (the launcher with `clamp run`, and the tool CLI) into one ESM
// bundle under dist/cli/, with a manifest of every source it was built from (size and mtime) so the bin
// scripts can tell cheaply whether it is still fresh. Packages stay external (Node loads them as
// installed: native modules, WASM files and the workers' sources work as from the sources), but for
// INLINE: plain JavaScript the tool CLI loads at a command or a search, whose hundreds of small files cost
// more to resolve and compile one by one than their code does in one chunk.
// Usage: node scripts/build-cli.mjs [--quiet] [--soft: exit 0 when the build fails, for npm's postinstall]
//        [--if-idle: skip when another --if-idle build is under way, for the bin scripts' background rebuild]
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist', 'cli');
export const ENTRIES = { launch: 'lib/server/launch.ts', 'run-args': 'lib/server/headless/args.ts', 'tool-cli': 'lib/cli/tool-cli.ts', 'tool-usage': 'lib/cli/tool-usage.ts' };

/**
 * Packages built into the bundle, with what they import. Each is plain JavaScript with no native module and no file
 * found next to its code. zod is one: the ai SDK converts the tools' schemas with its own copy of the same version,
 * which reads them by their `_zod` fields, and zod keeps its registry (the descriptions) on globalThis for both.
 */
export const INLINE = ['execa', 'fast-glob', 'diff', 'ignore', 'zod'];

/** The package a bare import names (`@scope/name` or `name`), or undefined for a relative path or a builtin. */
function packageOf(spec) {
  if (/^(\.|\/|node:)/.test(spec)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Which packages are bundled: an INLINE package and whatever it imports (its importer is in node_modules) go in;
 * every other package stays external.
 */
const inlinePackages = {
  name: 'inline-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const pkg = packageOf(args.path);
      if (!pkg || isBuiltin(args.path)) return undefined;
      if (INLINE.includes(pkg) || args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      return { path: deepImport(args.path) ?? args.path, external: true };
    });
  },
};

/**
 * Node's ESM resolver wants full paths inside a package without an "exports" map: a deep extensionless
 * import of a CommonJS package (`fast-glob/out/settings`) is rewritten to the file that exists.
 */
function deepImport(spec) {
  if (!/^(@[^/]+\/)?[^./][^/]*\/.+/.test(spec) || path.extname(spec)) return undefined;
  const parts = spec.split('/');
  const pkgLen = parts[0].startsWith('@') ? 2 : 1;
  const pkgDir = path.join(ROOT, 'node_modules', ...parts.slice(0, pkgLen));
  let pkg;
  try {
    pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (pkg.exports) return undefined;
  const rest = path.join(pkgDir, ...parts.slice(pkgLen));
  if (fs.existsSync(rest + '.js')) return spec + '.js';
  if (fs.existsSync(path.join(rest, 'index.js'))) return spec + '/index.js';
  return undefined;
}

/** A chunk no build has written for this long goes: a process started from an older bundle may still import it lazily. */
const OLD_CHUNK_MS = 24 * 3600 * 1000;

/** Write a file whole: to a temporary name, then renamed over, so a reader sees the old file or the new one. */
function writeWhole(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

/**
 * Build into dist/cli/ (or `out`, for other `entries`) in place: chunks are named by their content, so a running
 * Clamp started from the previous bundle still finds the chunks it imports later; entries and the manifest are
 * replaced whole, the manifest last. Chunks no build has written for OLD_CHUNK_MS are removed. The manifest lists
 * every source with `alsoInputs` (files whose change makes the bundle stale too); the INLINE packages' files are not
 * listed but package-lock.json is (an install that changes them changes it), so a start checks half as many files.
 */
export async function buildCli({ quiet = false, entries = ENTRIES, out = OUT, alsoInputs = ['scripts/build-cli.mjs', 'package.json', 'package-lock.json'] } = {}) {
  const { build } = await import('esbuild');
  const started = Date.now();
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: entries,
    outdir: out,
    write: false,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // CommonJS code built in (fast-glob's) requires Node's builtins: `require` is made for it
    banner: { js: "import { createRequire as __clampRequire } from 'node:module'; const require = __clampRequire(import.meta.url);" },
    outExtension: { '.js': '.mjs' },
    metafile: true,
    logLevel: 'error',
    plugins: [inlinePackages],
  });
  fs.mkdirSync(out, { recursive: true });
  const written = new Set(['manifest.json']);
  const now = new Date();
  for (const f of result.outputFiles) {
    written.add(path.basename(f.path));
    const same = fs.existsSync(f.path) && Buffer.compare(fs.readFileSync(f.path), Buffer.from(f.contents)) === 0;
    if (same) fs.utimesSync(f.path, now, now);
    else writeWhole(f.path, f.contents);
  }
  const inputs = {};
  for (const rel of [...Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/')), ...alsoInputs]) {
    const st = fs.statSync(path.join(ROOT, rel));
    inputs[rel] = [st.size, st.mtimeMs];
  }
  const names = Object.fromEntries(Object.keys(entries).map((k) => [k, `${k}.mjs`]));
  writeWhole(path.join(out, 'manifest.json'), JSON.stringify({ builtAt: now.toISOString(), entries: names, inputs }));
  for (const name of fs.readdirSync(out)) {
    const file = path.join(out, name);
    if (!written.has(name) && Date.now() - fs.statSync(file).mtimeMs > OLD_CHUNK_MS) fs.rmSync(file, { force: true });
  }
  if (!quiet) process.stderr.write(`clamp: built the CLI bundle in ${path.relative(ROOT, out)}/ (${Object.keys(inputs).length} sources, ${Date.now() - started} ms)\n`);
}

const LOCK = path.join(ROOT, 'dist', '.cli-build.lock');
const LOCK_STALE_MS = 120_000;

/** --if-idle (the bin scripts' background rebuild): false when another build started less than LOCK_STALE_MS ago. */
function takeLock() {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  try {
    if (Date.now() - fs.statSync(LOCK).mtimeMs < LOCK_STALE_MS) return false;
  } catch {
    // no build under way
  }
  fs.writeFileSync(LOCK, String(process.pid));
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifIdle = process.argv.includes('--if-idle');
  try {
    if (ifIdle && !takeLock()) process.exit(0);
    await buildCli({ quiet: process.argv.includes('--quiet') });
  } catch (err) {
    process.stderr.write(`clamp: building the CLI bundle failed: ${err?.message ?? err}\nThe bin scripts run from the sources meanwhile; fix the error and run \`npm run build:cli\`.\n`);
    // --soft (npm's postinstall): an install does not fail for it
    if (!process.argv.includes('--soft')) process.exitCode = 1;
  } finally {
    if (ifIdle) fs.rmSync(LOCK, { force: true });
  }
}
