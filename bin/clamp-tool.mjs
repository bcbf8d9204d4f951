#!/usr/bin/env node
// The tool CLI: runs one tool through dispatch and prints its ToolResult as JSON.
import { loadEntry } from './pick-entry.mjs';

const { toolCli } = await loadEntry('tool-cli', 'lib/cli/tool-cli.ts');
process.exitCode = await toolCli(process.argv.slice(2));
