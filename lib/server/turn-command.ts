import type { ChatBody } from '../contract/chat-body';
import type { FileCommandUse } from '../contract/command-text';
import type { ClampMessage } from '../contract/protocol';
import { PROVIDERS } from '../contract/providers';
import type { Registry } from '../dispatch/registry';
import { limitRegistry } from '../dispatch/tool-limit';
import type { ResolvedModel, UnresolvedModel } from '../agent/providers';
import type { Db } from '../store/db';
import { loadMessages } from '../store/messages';
import { fileCommands } from './file-commands';
import { HttpError, type ServerConfig } from './http';
import { resolveSpec } from './session-model';

/**
 * A turn started by a command from a file runs under its front matter: `allowed-tools` limits the turn's tools
 * (lib/dispatch/tool-limit.ts) and `model` picks the turn's model. The command is looked up on the server when
 * the message arrives (the page names it; its limits come from the file, never from the page) and kept in the
 * user message as a data-file-command part, so the turn's continuations (after approvals) hold to it too.
 */

/** The latest user message's command, if it was sent as one. */
function storedCommand(messages: readonly ClampMessage[]): FileCommandUse | undefined {
  const user = messages.findLast((m) => m.role === 'user');
  const part = user?.parts.find((p) => p.type === 'data-file-command');
  return part?.type === 'data-file-command' ? part.data : undefined;
}

/**
 * The command a turn runs under: the body's, read from its file now, or (a continuation) the one the latest
 * stored user message was sent as. Throws HttpError 400 for a command no file defines.
 */
export function turnCommand(cfg: ServerConfig, db: Db, body: ChatBody): FileCommandUse | undefined {
  const asked = body.message?.command;
  if (!asked) return body.continue ? storedCommand(loadMessages(db, body.sessionId)) : undefined;
  const all = fileCommands(db, cfg.workspace, cfg.dataDir);
  const c = all.find((x) => x.name === asked.name);
  if (!c) throw new HttpError(400, `There is no command /${asked.name} (no .md file defines it now). ${all.length ? `Commands from files: ${all.map((x) => `/${x.name}`).join(', ')}.` : 'No commands from files are found.'}`);
  return { name: c.name, args: asked.args, ...(c.allowedTools ? { allowedTools: c.allowedTools } : {}), ...(c.model && c.model !== 'inherit' ? { model: c.model } : {}) };
}

/** The turn's registry under the command's allowed-tools (unchanged without one). */
export function commandRegistry(reg: Registry, use: FileCommandUse | undefined): Registry {
  if (!use?.allowedTools) return reg;
  return limitRegistry(reg, use.allowedTools, `the command /${use.name} allows only these tools: ${use.allowedTools.join(', ')} (its allowed-tools line)`);
}

/** A model as a file names it: `provider:model`, or a model of `provider` (the session's). */
export function specFor(named: string, provider: string | null): string {
  const colon = named.indexOf(':');
  if (colon > 0 && (PROVIDERS as readonly string[]).includes(named.slice(0, colon))) return named;
  return provider ? `${provider}:${named}` : named;
}

/** The model a file names (a command's, an agent's), resolved beside `current`'s provider. Never throws. */
export function namedModel(cfg: ServerConfig, named: string, current: ResolvedModel | UnresolvedModel): ResolvedModel | UnresolvedModel {
  return resolveSpec(cfg, specFor(named, current.status.provider));
}
