#!/usr/bin/env node
// Builds Clamp's command-line entry points (the launcher with `clamp run`, and the tool CLI) into one ESM
// bundle under dist/cli/, with a manifest of every source it was built from (size and mtime) so the bin
// scripts can tell cheaply whether it is still fresh. Packages stay external (Node loads them as
// installed: native modules, WASM files and the workers' sources work as from the sources).
// Usage: node scripts/build-cli.mjs [--quiet] [--soft: exit 0 when the build fails, for npm's postinstall]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist', 'cli');
export const ENTRIES = { launch: 'lib/server/launch.ts', 'run-args': 'lib/server/headless/args.ts', 'tool-cli': 'lib/cli/tool-cli.ts', 'tool-usage': 'lib/cli/tool-usage.ts' };

/**
 * Node's ESM resolver wants full paths inside a package without an "exports" map: a deep extensionless
 * import of a CommonJS package (`fast-glob/out/settings`) is rewritten to the file that exists.
 */
const deepImports = {
  name: 'deep-imports',
  setup(build) {
    build.onResolve({ filter: /^(@[^/]+\/)?[^./][^/]*\/.+/ }, (args) => {
      if (path.extname(args.path)) return { path: args.path, external: true };
      const parts = args.path.split('/');
      const pkgLen = parts[0].startsWith('@') ? 2 : 1;
      const pkgDir = path.join(ROOT, 'node_modules', ...parts.slice(0, pkgLen));
      let pkg;
      try {
        pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
      } catch {
        return { path: args.path, external: true };
      }
      if (pkg.exports) return { path: args.path, external: true };
      const rest = path.join(pkgDir, ...parts.slice(pkgLen));
      if (fs.existsSync(rest + '.js')) return { path: args.path + '.js', external: true };
      if (fs.existsSync(path.join(rest, 'index.js'))) return { path: args.path + '/index.js', external: true };
      return { path: args.path, external: true };
    });
  },
};

/** Build into a fresh folder beside dist/cli, then swap it in, so a launcher reading the bundle meanwhile sees a whole one. */
export async function buildCli({ quiet = false } = {}) {
  const { build } = await import('esbuild');
  const started = Date.now();
  const tmp = `${OUT}-build-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: tmp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    metafile: true,
    logLevel: 'error',
    plugins: [deepImports],
  });
  const inputs = {};
  for (const rel of [...Object.keys(result.metafile.inputs), 'scripts/build-cli.mjs', 'package.json']) {
    const st = fs.statSync(path.join(ROOT, rel));
    inputs[rel] = [st.size, st.mtimeMs];
  }
  const entries = Object.fromEntries(Object.keys(ENTRIES).map((k) => [k, `${k}.mjs`]));
  fs.writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify({ builtAt: new Date().toISOString(), entries, inputs }));
  const old = `${OUT}-old-${process.pid}`;
  try {
    fs.renameSync(OUT, old);
  } catch {
    // no bundle yet
  }
  fs.renameSync(tmp, OUT);
  fs.rmSync(old, { recursive: true, force: true });
  if (!quiet) process.stderr.write(`clamp: built the CLI bundle in dist/cli/ (${Object.keys(inputs).length} sources, ${Date.now() - started} ms)\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await buildCli({ quiet: process.argv.includes('--quiet') });
  } catch (err) {
    process.stderr.write(`clamp: building the CLI bundle failed: ${err?.message ?? err}\nThe bin scripts run from the sources meanwhile; fix the error and run \`npm run build:cli\`.\n`);
    // --soft (npm's postinstall): an install does not fail for it
    if (!process.argv.includes('--soft')) process.exitCode = 1;
  }
}
