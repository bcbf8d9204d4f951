/**
 * npm run tool-cost: the tokens each tool definition costs on every request (name + description +
 * JSON schema, o200k_base), and the total of the always-loaded set against its budget.
 * Exits 1 when that set is over TOOL_DEFINITIONS_MAX_TOKENS, naming the heaviest descriptions.
 */
import { BUDGET } from '../lib/contract/budget';
import { formatCount } from '../lib/contract/text';
import { toolCostReport } from './tool-cost-count';

const report = toolCostReport();
const max = BUDGET.TOOL_DEFINITIONS_MAX_TOKENS;
const pad = (s: string | number, n: number, right = false) => (right ? String(s).padStart(n) : String(s).padEnd(n));
const width = Math.max(...report.tools.map((t) => t.name.length), 'tool'.length);

console.log(`${pad('tool', width)}  ${pad('effect', 6)}  ${pad('tokens', 6, true)}  ${pad('descr.', 6, true)}  ${pad('schema', 6, true)}  listed`);
for (const t of report.tools) {
  console.log(
    `${pad(t.name, width)}  ${pad(t.effect, 6)}  ${pad(t.tokens, 6, true)}  ${pad(t.descriptionTokens, 6, true)}  ${pad(t.schemaTokens, 6, true)}  ${t.alwaysLoaded ? 'always' : 'when available'}`,
  );
}
console.log('');
console.log(`all tools:              ${formatCount(report.allTokens)} tokens`);
console.log(`always loaded (default mode, no skills or search): ${formatCount(report.alwaysLoadedTokens)} tokens of ${formatCount(max)} allowed`);
if (report.alwaysLoadedTokens > max) {
  const heavy = report.tools
    .filter((t) => t.alwaysLoaded)
    .sort((a, b) => b.descriptionTokens - a.descriptionTokens)
    .slice(0, 5)
    .map((t) => `${t.name} (${t.descriptionTokens} description + ${t.schemaTokens} schema)`);
  console.log(`OVER by ${formatCount(report.alwaysLoadedTokens - max)} tokens. Heaviest descriptions: ${heavy.join(', ')}.`);
  process.exitCode = 1;
}

// Deferral: MCP servers of CLAMP_MCP_CONFIG (started for the count, then stopped) and, with --window <tokens>, the built-ins a window that size defers.
await deferralTotals();

async function deferralTotals(): Promise<void> {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { ALL_TOOLS } = await import('../lib/dispatch/all-tools');
  const { planDeferral } = await import('../lib/dispatch/turn-registry');
  const { definitionTokens } = await import('../lib/dispatch/tool-cost');
  const { McpHub } = await import('../lib/mcp/hub');
  const at = process.argv.indexOf('--window');
  const windowTokens = at > 0 ? Number(process.argv[at + 1]) : Number.POSITIVE_INFINITY;
  if (at > 0 && !(windowTokens > 0)) {
    console.error('--window needs a number of tokens, e.g. --window 16384');
    process.exitCode = 2;
    return;
  }
  let mcp: (typeof ALL_TOOLS)[number][] | import('../lib/contract/types').ToolDefinition[] = [];
  if (process.env.CLAMP_MCP_CONFIG) {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clamp-tool-cost-mcp-')));
    const hub = new McpHub(tmp, tmp, process.env);
    try {
      await hub.prepare();
      for (const p of hub.problems) console.log(`MCP configuration: ${p}`);
      for (const s of hub.states()) console.log(`MCP server ${s.name}: ${s.status}${s.error ? ` (${s.error})` : ''}, ${s.tools.filter((t) => t.state === 'enabled').length} tools`);
      mcp = [...hub.tools()];
      console.log('');
      for (const t of mcp) console.log(`${pad(t.name, width)}  ${pad(t.effect, 6)}  ${pad(definitionTokens(t), 6, true)}  mcp`);
    } finally {
      await hub.shutdown();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  const builtins = ALL_TOOLS.filter((t) => report.tools.find((c) => c.name === t.name)?.alwaysLoaded);
  const search = ALL_TOOLS.find((t) => t.name === 'tool_search');
  const plan = planDeferral({ builtins, mcp, search, windowTokens, loaded: new Set(), budget: { ...BUDGET } });
  const deferredNames = [...plan.deferred];
  console.log('');
  console.log(`MCP tools: ${formatCount(plan.mcpTokens)} tokens (${mcp.length} tools; deferred over ${formatCount(BUDGET.MCP_TOOLS_ALWAYS_LOADED_MAX_TOKENS)})`);
  console.log(`window: ${Number.isFinite(windowTokens) ? `${formatCount(windowTokens)} tokens (built-ins within ${BUDGET.BUILTIN_TOOLS_WINDOW_MAX_RATIO} of it)` : 'not given (--window <tokens> to see built-in deferral)'}`);
  console.log(`always loaded: ${formatCount(plan.alwaysLoadedTokens)} tokens`);
  console.log(`deferred behind tool_search: ${formatCount(plan.deferredTokens)} tokens${deferredNames.length ? ` (${deferredNames.length}: ${deferredNames.join(', ')})` : ''}`);
}
