#!/usr/bin/env node
// `npm run demo`: Clamp with the scripted model of demo/script.json on a fresh copy of demo/workspace.
// Everything it writes goes to its own folder (<system temp>/clamp-demo, or CLAMP_DEMO_DIR), replaced at
// every start; the checkout is never touched, and neither is the data dir of a real Clamp (~/.clamp).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(process.env.CLAMP_DEMO_DIR || path.join(os.tmpdir(), 'clamp-demo'));
// only a folder the demo made is ever replaced: it holds this marker
const MARK = '.clamp-demo';
const PID_FILE = path.join(root, 'demo.pid');

function fail(message) {
  process.stderr.write(`clamp demo: ${message}\n`);
  process.exit(2);
}

function running() {
  try {
    const pid = Number(fs.readFileSync(PID_FILE, 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

if (fs.existsSync(root)) {
  if (!fs.statSync(root).isDirectory()) fail(`${root} exists and is not a folder. Remove it, or set CLAMP_DEMO_DIR to another folder.`);
  if (!fs.existsSync(path.join(root, MARK)) && fs.readdirSync(root).length > 0) {
    fail(`${root} exists and was not made by the demo, so it is left alone. Remove it, or set CLAMP_DEMO_DIR to another folder.`);
  }
  const pid = running();
  if (pid) fail(`a demo is already running from ${root} (pid ${pid}). Stop it first (Ctrl-C where it runs), or set CLAMP_DEMO_DIR to another folder.`);
  fs.rmSync(root, { recursive: true, force: true });
}
const workspace = path.join(root, 'workspace');
const dataDir = path.join(root, 'data');
fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
fs.writeFileSync(path.join(root, MARK), 'This folder belongs to `npm run demo` of Clamp; every demo start replaces it.\n');
fs.writeFileSync(PID_FILE, String(process.pid));
fs.cpSync(path.join(here, 'workspace'), workspace, { recursive: true });

const script = path.join(here, 'script.json');
Object.assign(process.env, {
  CLAMP_WORKSPACE: workspace,
  CLAMP_DATA_DIR: dataDir,
  CLAMP_MODEL: `scripted:${script}`,
  CLAMP_MODE: 'default',
  CLAMP_TOKEN: crypto.randomBytes(24).toString('base64url'),
});
process.stdout.write(
  `Clamp demo: a scripted model (not a real model) plays ${path.relative(process.cwd(), script) || script}\n` +
    `on a fresh copy of the sample project in ${workspace}; the checkout is not touched.\n` +
    `Open the URL below and send any message; the script's format is in docs/scripted-model.md.\n\n`,
);

register();
const { launch } = await import('../lib/server/launch.ts');
await launch(process.argv.slice(2));
