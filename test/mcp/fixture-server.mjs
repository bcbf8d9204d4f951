#!/usr/bin/env node
// A small MCP server for Clamp's tests, on the SDK's McpServer: a 5 MB result, a crash mid-call, a
// call that never answers, an error result, and a tool-list change. `--http <port-file>` serves it over
// Streamable HTTP (/mcp) and the older HTTP+SSE transport (/sse, /messages) on 127.0.0.1 instead of stdio.
import fs from 'node:fs';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'clamp-fixture', version: '1.0.0' });
  server.registerTool('big', { description: 'Returns 5 MB of text.', inputSchema: { mb: z.number().optional() }, annotations: { readOnlyHint: true } }, async ({ mb }) => {
    const line = 'x'.repeat(99) + '\n';
    return { content: [{ type: 'text', text: line.repeat(Math.round(((mb ?? 5) * 1024 * 1024) / 100)) }] };
  });
  server.registerTool('crash', { description: 'Exits the server in the middle of the call.', annotations: { readOnlyHint: true } }, async () => {
    process.stderr.write('fixture: crashing now\n');
    setTimeout(() => process.exit(3), 50);
    return new Promise(() => {});
  });
  server.registerTool('hang', { description: 'Never answers.', annotations: { readOnlyHint: true } }, async () => new Promise(() => {}));
  server.registerTool('fail', { description: 'Returns an error result.', inputSchema: { why: z.string() } }, async ({ why }) => ({
    isError: true,
    content: [{ type: 'text', text: `it went wrong: ${why}` }],
  }));
  server.registerTool('shout', { description: 'Upper-cases a word. Never changes anything.', inputSchema: { word: z.string() }, annotations: { readOnlyHint: true } }, async ({ word }) => ({
    content: [{ type: 'text', text: word.toUpperCase() }],
  }));
  server.registerTool('add-tool', { description: 'Adds a tool named "late" to this server.' }, async () => {
    server.registerTool('late', { description: 'A tool added after start.', annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: 'late tool ran' }] }));
    return { content: [{ type: 'text', text: 'added "late"' }] };
  });
  return server;
}

const httpAt = process.argv.indexOf('--http');
if (httpAt === -1) {
  process.stderr.write('fixture: started on stdio\n');
  await build().connect(new StdioServerTransport());
} else {
  const portFile = process.argv[httpAt + 1];
  const streams = new Map();
  const sse = new Map();
  const srv = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/mcp') {
      if (process.argv.includes('--sse-only')) {
        res.writeHead(404).end('not here');
        return;
      }
      const sid = req.headers['mcp-session-id'];
      let t = sid ? streams.get(sid) : undefined;
      if (!t) {
        t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => `s${Math.random().toString(36).slice(2)}`, onsessioninitialized: (id) => streams.set(id, t) });
        await build().connect(t);
      }
      await t.handleRequest(req, res);
      return;
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
      const t = new SSEServerTransport('/messages', res);
      sse.set(t.sessionId, t);
      await build().connect(t);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const t = sse.get(url.searchParams.get('sessionId'));
      if (!t) return void res.writeHead(404).end();
      await t.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  srv.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(srv.address().port)));
}
