#!/usr/bin/env node
// A shell script inside the sandbox a language server runs in (run it as the user to test):
//   node test/escape/lsp-run.mjs <clamp root> <workspace> <data dir> server|command '<script>'
// `server`: the bwrap arguments the built-in TypeScript server of a Clamp installed at <clamp root> gets (what it
// runs from bound in); `command`: those of a read-only command in the same workspace, for comparison. Prints one JSON
// object: the script's exit code, stdout and stderr, and the folders bound in.
import { spawnSync } from 'node:child_process';
import { loadLib } from './load-lib.mjs';

const { serverSandboxArgs, runsFrom, typescriptServer, sandboxArgs, sandboxStatus, withoutSecrets } = await loadLib('lsp-run');

const [root, workspace, dataDir, kind, script] = process.argv.slice(2);
const spec = typescriptServer(root);
const status = sandboxStatus(process.env);
if (!spec || !status.available) {
  console.log(JSON.stringify({ error: !spec ? `no typescript-language-server under ${root}` : status.problem }));
  process.exit(0);
}
const env = withoutSecrets(process.env);
const confine = kind === 'server' ? serverSandboxArgs(spec, { workspace, dataDir, env: process.env }) : sandboxArgs({ level: 'read-only', workspace, dataDir, network: false }, workspace, env);
const r = spawnSync(status.bwrap, [...confine, '/bin/sh', '-c', script], { cwd: workspace, env, encoding: 'utf8', timeout: 30_000 });
console.log(JSON.stringify({ code: r.status, stdout: r.stdout, stderr: r.stderr, bound: kind === 'server' ? runsFrom(spec, process.env) : [] }));
