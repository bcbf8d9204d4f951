#!/usr/bin/env node
// A one-tool MCP server for the hooks tests: `touch` writes the file it is given, so a test can tell whether a call ran.
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'touch', version: '1.0.0' });
server.registerTool('touch', { description: 'Creates the file at an absolute path.', inputSchema: { file: z.string() } }, async ({ file }) => {
  fs.writeFileSync(file, 'touched\n');
  return { content: [{ type: 'text', text: `touched ${file}` }] };
});
await server.connect(new StdioServerTransport());
