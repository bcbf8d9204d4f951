#!/usr/bin/env node
// A workspace's .mcp.json servers as the server runs them, in this process (run it as the user to test):
//   node test/escape/mcp-run.mjs <workspace> <data dir> <tool> '<json args>'
// Approves every server the workspace's .mcp.json defines (as the person would on the settings page), starts
// them, calls <tool> on the first, and stops them all. Prints one JSON object: the servers' states and the answer.
import { loadLib } from './load-lib.mjs';

const { McpHub, approveServer, openDb } = await loadLib('mcp-run');

const [workspace, dataDir, tool, json = '{}'] = process.argv.slice(2);
const out = {};
const hub = new McpHub(dataDir, workspace, process.env);
try {
  for (const e of hub.configured()) if (e.source === 'workspace') approveServer(openDb(dataDir), workspace, e);
  hub.reload();
  await hub.prepare();
  out.states = hub.states().map((s) => ({ name: s.name, source: s.source, status: s.status, error: s.error }));
  const first = hub.configured()[0];
  const rt = first && hub.runtime(first.name);
  if (rt && rt.status === 'running') {
    const r = await rt.call(tool, JSON.parse(json), { signal: new AbortController().signal, timeoutMs: 20_000 });
    out.answer = r.content?.map((c) => c.text ?? '').join('');
  }
} catch (err) {
  out.error = err instanceof Error ? err.message : String(err);
} finally {
  await hub.shutdown();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
