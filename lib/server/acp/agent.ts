import type { AgentContext, ClientCapabilities, InitializeResponse, NewSessionRequest, NewSessionResponse, SessionModeState, SessionUpdate } from '@agentclientprotocol/sdk';
import { agent, methods, PROTOCOL_VERSION, RequestError, type AgentApp } from '@agentclientprotocol/sdk';
import { PERMISSION_MODES, type PermissionMode } from '../../contract/types';
import { createToolRegistry } from '../../dispatch/all-tools';
import { openDb, StoreError } from '../../store/db';
import { loadMessages } from '../../store/messages';
import { createSession, getSession, requireSession, updateSession } from '../../store/sessions';
import { sessionHome } from '../../store/worktrees';
import { HttpError, type ServerConfig } from '../http';
import { currentModel } from '../model';
import { openWorkspace } from '../workspaces';
import { availableCommands } from './commands';
import { editorSession } from './editor-fs';
import { takeEditorServers } from './mcp-servers';
import { runPrompt, type AcpSession } from './prompt-turn';
import { replayUpdates } from './replay';

/** Each permission mode as the editor's mode picker shows it. */
const MODE_TEXT: Record<PermissionMode, { name: string; description: string }> = {
  default: { name: 'Default', description: 'Reads run; edits and commands ask.' },
  'accept-edits': { name: 'Accept edits', description: 'Edits run; commands ask.' },
  plan: { name: 'Plan', description: 'Only read tools: look and plan, change nothing.' },
  debug: { name: 'Debug', description: 'Commands ask; edits are blocked.' },
  auto: { name: 'Auto', description: 'Nothing asks; catastrophic commands are blocked, dangerous ones denied unless a rule allows them.' },
};

function modeState(current: PermissionMode): SessionModeState {
  return { currentModeId: current, availableModes: PERMISSION_MODES.map((id) => ({ id, ...MODE_TEXT[id] })) };
}

/** What one connection knows: the editor's capabilities, the sessions it created or loaded, the prompts running. */
interface Connection {
  base: ServerConfig;
  caps: ClientCapabilities;
  sessions: Map<string, AcpSession>;
  running: Set<Promise<unknown>>;
}

/** How long a closed connection's prompts get to stop and save (their commands are killed meanwhile) before Clamp exits. */
const WIND_DOWN_MS = 5000;

/** Clamp's agent app, and its wind-down when the editor goes away. */
export interface ClampAgent {
  app: AgentApp;
  /** stop every running prompt as cancel does and wait (a while) for each to save what it did */
  windDown(): Promise<void>;
}

/** Store errors and refusals as the protocol's errors, with their text (what to do) kept. */
function asRequestError(err: unknown): unknown {
  if (err instanceof StoreError && err.code === 'not-found') return new RequestError(-32002, err.message);
  if (err instanceof HttpError || err instanceof StoreError) return new RequestError(-32602, err.message);
  return err;
}

async function guarded<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asRequestError(err);
  }
}

function sessionOf(c: Connection, id: string): AcpSession {
  const s = c.sessions.get(id);
  if (!s) throw new RequestError(-32002, `Session ${id} is not open on this connection: create it with session/new or open it with session/load first.`);
  return s;
}

/** Open a Clamp session on this connection: its folder, and its files through the editor when the editor offers them. */
function attach(c: Connection, client: AgentContext, id: string, workspace: string): AcpSession {
  const s: AcpSession = { id, cfg: { ...c.base, workspace }, ...editorSession(client, id, workspace, c.caps) };
  c.sessions.set(id, s);
  return s;
}

/** Tell the editor what slash commands there are, once the session's answer has gone out. */
function advertiseCommands(client: AgentContext, s: AcpSession): void {
  setImmediate(() => {
    void guarded(() => client.notify(methods.client.session.update, { sessionId: s.id, update: { sessionUpdate: 'available_commands_update', availableCommands: availableCommands(s.cfg) } })).catch((err) =>
      process.stderr.write(`clamp acp: the slash commands could not be listed: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
}

/** The editor's MCP servers join the folder's; what cannot be taken is said on stderr (the session starts anyway). */
function editorServers(base: ServerConfig, workspace: string, servers: Parameters<typeof takeEditorServers>[2]): void {
  for (const p of takeEditorServers(base.dataDir, workspace, servers)) process.stderr.write(`clamp acp: ${p}\n`);
}

/** What Clamp says it can do: load its sessions, take text, embedded files and (when the model does) images, and the editor's MCP servers over stdio, HTTP and SSE. */
function initialized(c: Connection): InitializeResponse {
  const image = currentModel(c.base).status.imageInput?.accepted === true;
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: true, promptCapabilities: { image, audio: false, embeddedContext: true }, mcpCapabilities: { http: true, sse: true } },
    agentInfo: { name: 'clamp', title: 'Clamp', version: process.env.npm_package_version || '0.1.0' },
    authMethods: [],
  };
}

/**
 * Clamp as an Agent Client Protocol agent: sessions are Clamp's own (the page lists and opens them), a prompt
 * runs one turn as the page's does, and every call goes through dispatch, the policy, the exit clamp and the
 * write-ahead journal as there.
 */
export function clampAgent(base: ServerConfig): ClampAgent {
  const c: Connection = { base, caps: {}, sessions: new Map(), running: new Set() };
  const windDown = async () => {
    for (const s of c.sessions.values()) s.stop?.abort(new Error('the editor closed the connection'));
    await Promise.race([Promise.allSettled([...c.running]), new Promise((r) => setTimeout(r, WIND_DOWN_MS).unref())]);
  };
  return { app: handlers(c), windDown };
}

/** `session/new`: a session of the store in the folder the editor opens (opened as a workspace), with the editor's MCP servers. */
function newSession(c: Connection, client: AgentContext, params: NewSessionRequest): NewSessionResponse {
  const { base } = c;
  const workspace = openWorkspace(base, params.cwd).path;
  editorServers(base, workspace, params.mcpServers);
  const db = openDb(base.dataDir);
  const id = createSession(db, { workspace }, base.mode).id;
  const s = attach(c, client, id, workspace);
  advertiseCommands(client, s);
  return { sessionId: id, modes: modeState(getSession(db, id)?.mode ?? base.mode) };
}

/** The requests and notifications Clamp answers. */
function handlers(c: Connection): AgentApp {
  const { base } = c;
  const send = (client: AgentContext, sessionId: string) => (update: SessionUpdate) => {
    void client.notify(methods.client.session.update, { sessionId, update }).catch(() => undefined);
  };
  return agent({ name: 'clamp' })
    .onRequest(methods.agent.initialize, ({ params }) => {
      c.caps = params.clientCapabilities ?? {};
      return initialized(c);
    })
    .onRequest(methods.agent.session.new, ({ params, client }) => guarded(() => newSession(c, client, params)))
    .onRequest(methods.agent.session.load, ({ params, client }) =>
      guarded(async () => {
        const db = openDb(base.dataDir);
        const session = requireSession(db, params.sessionId);
        if (session.parentId) throw new HttpError(400, `Session ${params.sessionId} is a subagent's transcript; load its parent session instead.`);
        const workspace = sessionHome(db, params.sessionId) ?? session.workspace;
        editorServers(base, workspace, params.mcpServers);
        const s = attach(c, client, session.id, workspace);
        for (const update of replayUpdates(loadMessages(db, session.id), createToolRegistry(), workspace)) {
          await client.notify(methods.client.session.update, { sessionId: session.id, update });
        }
        advertiseCommands(client, s);
        return { modes: modeState(session.mode) };
      }),
    )
    .onRequest(methods.agent.session.setMode, ({ params, client }) =>
      guarded(async () => {
        const s = sessionOf(c, params.sessionId);
        const mode = PERMISSION_MODES.find((m) => m === params.modeId);
        if (!mode) throw new RequestError(-32602, `Unknown mode "${params.modeId}". Modes: ${PERMISSION_MODES.join(', ')}.`);
        // read at every call: the running turn's next call already works in the new mode
        updateSession(openDb(base.dataDir), s.cfg.workspace, s.id, { mode });
        await client.notify(methods.client.session.update, { sessionId: s.id, update: { sessionUpdate: 'current_mode_update', currentModeId: mode } });
        return {};
      }),
    )
    .onRequest(methods.agent.session.prompt, ({ params, client }) =>
      guarded(() => {
        const s = sessionOf(c, params.sessionId);
        if (s.stop) throw new RequestError(-32602, 'This session is already working on a prompt. Wait for it, or cancel it first.');
        const running = runPrompt(client, s, params, send(client, s.id));
        c.running.add(running);
        void running.catch(() => undefined).finally(() => c.running.delete(running));
        return running;
      }),
    )
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      c.sessions.get(params.sessionId)?.stop?.abort(new Error('stopped in the editor (session/cancel)'));
    });
}
