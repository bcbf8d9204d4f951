import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createContext, type ContextInit } from '../lib/dispatch/context';
import { createRegistry } from '../lib/dispatch/registry';
import { dispatch, prepareCall, type DispatchOptions } from '../lib/dispatch/dispatch';
import type { ToolContext, ToolDefinition, ToolResult } from '../lib/contract/types';
import type { z } from 'zod';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/** A fresh temp workspace and data dir (real paths), removed by cleanup(). */
export function tempWorkspace(prefix = 'clamp-test-') {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const workspace = path.join(root, 'ws');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
  fs.mkdirSync(dataDir);
  return {
    root,
    workspace,
    dataDir,
    /** write a file relative to the workspace, creating parents */
    write(rel: string, content: string | Buffer) {
      const abs = path.join(workspace, rel);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, content);
      return abs;
    },
    read(rel: string) {
      return fs.readFileSync(path.join(workspace, rel), 'utf8');
    },
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A dispatcher over the given tools, bound to a workspace; extra context per call. */
export function harness(tools: ToolDefinition[], ws: { workspace: string; dataDir: string }, base: Partial<ContextInit> = {}) {
  const reg = createRegistry(tools);
  return {
    reg,
    call(name: string, args: unknown, extra: Partial<ContextInit> = {}, opts: DispatchOptions = { approver: { approved: true } }): Promise<ToolResult> {
      const ctx = createContext({ workspace: ws.workspace, dataDir: ws.dataDir, ...base, ...extra });
      return dispatch(reg, name, args, ctx, opts);
    },
  };
}

/**
 * A fresh temp workspace and a dispatcher over the given tools for every test of a file, removed after
 * each test: `const bed = toolBed([readFileTool]);` then `bed.ws` and `bed.h` inside the tests.
 * base may be a function, read when each test starts (for values a beforeAll sets).
 */
export function toolBed(tools: ToolDefinition[], base: Partial<ContextInit> | (() => Partial<ContextInit>) = {}) {
  const bed = {} as { ws: ReturnType<typeof tempWorkspace>; h: ReturnType<typeof harness> };
  beforeEach(() => {
    bed.ws = tempWorkspace();
    bed.h = harness(tools, bed.ws, typeof base === 'function' ? base() : base);
  });
  afterEach(() => bed.ws.cleanup());
  return bed;
}

/** Every entry under dir with its content and mtime: an operation that must change nothing leaves this identical. */
export function treeSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const abs = path.join(e.parentPath, e.name);
    const st = fs.statSync(abs);
    out[path.relative(dir, abs)] = e.isFile() ? `${st.mtimeMs} ${fs.readFileSync(abs, 'hex')}` : `dir ${st.mtimeMs}`;
  }
  return out;
}

/** Every file under dir (not .git) with its bytes, mode and link target: what "byte-identical" compares. */
export function fileState(dir: string, skip = new Set(['.git'])): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (skip.has(r)) continue;
      const abs = path.join(dir, r);
      const st = fs.lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link → ${fs.readlinkSync(abs)}`;
      else if (st.isDirectory()) walk(r);
      else out[r] = `${(st.mode & 0o777).toString(8)} ${fs.readFileSync(abs).toString('base64')}`;
    }
  };
  walk('');
  return out;
}

/** The person's .git: every file's bytes, and the index's mtime (a checkpoint or rewind must leave both). */
export function gitState(ws: string): { files: Record<string, string>; indexMtimeMs: number } {
  return { files: fileState(path.join(ws, '.git'), new Set()), indexMtimeMs: fs.statSync(path.join(ws, '.git', 'index')).mtimeMs };
}

/**
 * A tool's approval preview as the loop asks for it: the call prepared by dispatch first (validated,
 * its paths resolved and confined into ctx.paths), then preview(). Throws when the call cannot be prepared.
 */
export async function previewCall(tool: ToolDefinition<z.ZodType>, args: unknown, ctx: ToolContext): Promise<{ summary?: string; diff?: string }> {
  const prep = prepareCall(createRegistry([tool]), tool.name, args, ctx);
  if (!prep.ok) throw new Error(`${tool.name} could not be prepared: ${prep.result.output}`);
  return prep.tool.preview!(prep.input as never, { ...ctx, paths: prep.paths });
}

/**
 * A loopback HTTP server for the file's tests (started before all, closed after all) that answers
 * "reached" and counts its requests: what a command without network must never reach. Reset hits yourself.
 */
export function loopbackCounter(): { hits: number; port: number } {
  const net = { hits: 0, port: 0 };
  let server: http.Server;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      net.hits++;
      res.end('reached\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    net.port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  return net;
}

/** A connection to host:port: 'open', or the error code (or 'timeout' after 3 s). Never rejects. */
export function connectProbe(host: string, port: number): Promise<string> {
  return new Promise<string>((resolve) => {
    const s = net.connect({ host, port }, () => {
      s.destroy();
      resolve('open');
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    s.setTimeout(3000, () => {
      s.destroy();
      resolve('timeout');
    });
  });
}
