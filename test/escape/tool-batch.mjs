#!/usr/bin/env node
// Many tool calls in one process, the way the tool CLI makes one (its configuration from the environment, the
// registry, the settings files' rules and hooks, dispatch), so a race can be tried a hundred times without a
// hundred slow starts, and a background task started by one call can be read by the next (task_output):
//   node test/escape/tool-batch.mjs <calls.json>   (calls: [{ "name": …, "args": …, "approve"?: true }, …])
// Prints one JSON array: each call's name, status and output.
import fs from 'node:fs';
import { loadLib } from './load-lib.mjs';

const { loadConfig, createContext, dispatch, createToolRegistry, runShutdownHooks, toolPermissions } = await loadLib('tool-batch');

const calls = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const cfg = loadConfig();
const reg = createToolRegistry();
const perms = await toolPermissions(cfg.workspace, cfg.dataDir);
const results = [];
for (const c of calls) {
  const ctx = createContext({ workspace: cfg.workspace, dataDir: cfg.dataDir, mode: cfg.mode, services: perms.services });
  const r = await dispatch(reg, c.name, c.args, ctx, { approver: { approved: c.approve === true, ...(perms.rule ? { rule: perms.rule } : {}) } });
  results.push({ name: c.name, args: c.args, status: r.status, output: r.output });
}
await runShutdownHooks();
process.stdout.write(JSON.stringify(results) + '\n');
process.exit(0);
