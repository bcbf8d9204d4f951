/**
 * A small editor for tests: `clamp acp` (the real bin) as a child process, driven by the ACP SDK's client side
 * over its stdin/stdout. It records the session updates and permission requests, and answers each request with
 * `choose` (default: allow once).
 */
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
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
  /** the paths the agent read through the editor, and the writes it asked for (with `files`) */
  reads: string[];
  writes: acp.WriteTextFileRequest[];
  child: ChildProcess;
  stderr: () => string;
  close: () => Promise<void>;
}

export interface TestEditorOptions {
  workspace: string;
  dataDir: string;
  modelUrl: string;
  env?: Record<string, string>;
  /** the option picked for a permission request (undefined: cancelled); default allow once */
  choose?: (req: acp.RequestPermissionRequest, signal: AbortSignal) => string | undefined | Promise<string | undefined>;
  /** serve file reads (the text the editor holds) and accept writes, as an editor that offers them does */
  readText?: (path: string) => string;
}

export function startTestEditor(o: TestEditorOptions): TestEditor {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/clamp.mjs'), 'acp'], {
    cwd: o.workspace,
    env: { ...BARE_ENV, CLAMP_WORKSPACE: o.workspace, CLAMP_DATA_DIR: o.dataDir, CLAMP_MODEL: 'openai-compatible:fake-coder', CLAMP_BASE_URL: o.modelUrl, ...o.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const e = { updates: [], permissions: [], reads: [], writes: [], child, stderr: () => stderr } as unknown as TestEditor;
  const choose = o.choose ?? (() => 'allow_once');
  let app = acp
    .client({ name: 'test editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => void e.updates.push(params))
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
      e.permissions.push(params);
      const optionId = await choose(params, signal);
      return optionId ? { outcome: { outcome: 'selected', optionId } } : { outcome: { outcome: 'cancelled' } };
    });
  const readText = o.readText;
  if (readText) {
    app = app
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        e.reads.push(params.path);
        return { content: readText(params.path) };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        e.writes.push(params);
        return {};
      });
  }
  const conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  e.agent = conn.agent;
  e.close = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    conn.close();
    child.stdin!.end();
    await exited;
  };
  return e;
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
