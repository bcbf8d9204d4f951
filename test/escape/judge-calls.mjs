#!/usr/bin/env node
// Many run_command calls in one process, made the way the tool CLI makes one (its configuration from the
// environment, the registry, dispatch with no approver), so a list of payloads is tried without a slow start each:
//   node test/escape/judge-calls.mjs <commands.json>   (a JSON array of command strings)
// Prints one JSON array: each command with the status and output of its call.
import fs from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { loadConfig } = await import('../../lib/config.ts');
const { createContext } = await import('../../lib/dispatch/context.ts');
const { dispatch } = await import('../../lib/dispatch/dispatch.ts');
const { createToolRegistry } = await import('../../lib/dispatch/all-tools.ts');
const { runShutdownHooks } = await import('../../lib/contract/shutdown.ts');

const commands = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const cfg = loadConfig();
const reg = createToolRegistry();
const results = [];
for (const command of commands) {
  const ctx = createContext({ workspace: cfg.workspace, dataDir: cfg.dataDir, mode: cfg.mode });
  const r = await dispatch(reg, 'run_command', { command }, ctx, { approver: { approved: false } });
  results.push({ command, status: r.status, output: r.output });
}
await runShutdownHooks();
process.stdout.write(JSON.stringify(results) + '\n');
process.exit(0);
