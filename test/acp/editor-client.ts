/**
 * A small editor for tests: `clamp acp` (the real bin) as a child process, driven by the ACP SDK's client side
 * over its stdin/stdout. It records the session updates and permission requests, and answers each request with
 * `choose` (default: allow once).
 */
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll } from 'vitest';
import { ROOT } from '../../lib/server/build';
import { closeDb } from '../../lib/store/db';
import { startFakeOpenAI, type FakeReply, type FakeRequest } from '../fake-openai';
import { tempWorkspace } from '../helpers';

const BARE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAMP_|ANTHROPIC_|OPENAI_|INIT_CWD$)/.test(k))) as NodeJS.ProcessEnv;

export interface TestEditor {
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  stderr: () => string;
  close: () => Promise<void>;
}

export function startTestEditor(o: { workspace: string; dataDir: string; modelUrl: string; env?: Record<string, string>; choose?: (req: acp.RequestPermissionRequest) => string | undefined }): TestEditor {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/clamp.mjs'), 'acp'], {
    cwd: o.workspace,
    env: { ...BARE_ENV, CLAMP_WORKSPACE: o.workspace, CLAMP_DATA_DIR: o.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: o.modelUrl, ...o.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const choose = o.choose ?? (() => 'allow_once');
  const app = acp
    .client({ name: 'test editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      const optionId = choose(params);
      return optionId ? { outcome: { outcome: 'selected', optionId } } : { outcome: { outcome: 'cancelled' } };
    });
  const conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  return {
    agent: conn.agent,
    updates,
    permissions,
    stderr: () => stderr,
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      conn.close();
      child.stdin!.end();
      await exited;
    },
  };
}

export interface AcpBed {
  ws: ReturnType<typeof tempWorkspace>;
  fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
}

/** A test file's workspace (with a README.md) and stand-in model, made before its tests and removed after them. */
export function acpBed(prefix: string, reply: (req: FakeRequest) => FakeReply): AcpBed {
  const bed = {} as AcpBed;
  beforeAll(async () => {
    bed.ws = tempWorkspace(prefix);
    bed.ws.write('README.md', '# demo\n');
    bed.fake = await startFakeOpenAI(reply);
  });
  afterAll(async () => {
    await bed.fake?.close();
    if (bed.ws) {
      closeDb(bed.ws.dataDir);
      bed.ws.cleanup();
    }
  });
  return bed;
}
