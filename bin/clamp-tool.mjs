#!/usr/bin/env node
// The tool CLI: runs one tool through dispatch and prints its ToolResult as JSON.
import { register } from 'tsx/esm/api';

register();
const { toolCli } = await import('../lib/cli/tool-cli.ts');
process.exitCode = await toolCli(process.argv.slice(2));
