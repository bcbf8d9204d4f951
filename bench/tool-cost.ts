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
