#!/usr/bin/env node
// The tool CLI: runs one tool through dispatch and prints its ToolResult as JSON. --help reads only its usage module.
import { loadEntry } from './pick-entry.mjs';

const argv = process.argv.slice(2);

/** True when --help was asked with known flags only: the usage is printed without loading the tools. */
async function printedHelp() {
  if (!argv.includes('--help')) return false;
  const { TOOL_CLI_FLAGS, TOOL_CLI_USAGE } = await loadEntry('tool-usage', 'lib/cli/tool-usage.ts');
  if (argv.some((a) => a.startsWith('--') && !TOOL_CLI_FLAGS.includes(a))) return false; // the CLI says which flag is wrong
  process.stdout.write(TOOL_CLI_USAGE + '\n');
  return true;
}

if (!(await printedHelp())) {
  const { toolCli } = await loadEntry('tool-cli', 'lib/cli/tool-cli.ts');
  process.exitCode = await toolCli(argv);
}
