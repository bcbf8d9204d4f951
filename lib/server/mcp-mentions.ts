import path from 'node:path';
import { BUDGET } from '../contract/budget';
import { parseMentions, resourceMention } from '../contract/mentions';
import type { ClampDataParts } from '../contract/protocol';
import type { MentionCheckAnswer, PathCompletionAnswer } from '../contract/rest';
import type { ToolContext } from '../contract/types';
import { dispatch } from '../dispatch/dispatch';
import { createRegistry } from '../dispatch/registry';
import { getMcpHub } from '../mcp/hub';
import { readGuardFor } from '../hooks/permission-verdict';
import { openDb } from '../store/db';
import { sessionHome } from '../store/worktrees';
import { readerOf, resourceItems } from '../mcp/resource-mentions';
import type { ServerConfig } from './http';
import { checkMention, completePaths } from './mention-paths';

/**
 * @-mentions of MCP resources (`@<server>:<uri>`, Claude Code's form) beside the workspace's paths: the composer's
 * completion offers them, the check before sending knows them, and a sent one is read through dispatch with the
 * server's read_resource tool, so it is bounded and spilled like any output and the person's hooks see the read.
 */

/** Lower is better: the uri or name starts with the query, holds it; -1 when it does neither. */
function score(item: { server: string; uri: string; name: string }, q: string): number {
  const full = `${item.server}:${item.uri}`.toLowerCase();
  if (!q) return 1;
  if (full.startsWith(q) || item.uri.toLowerCase().startsWith(q)) return 0;
  if (full.includes(q) || item.name.toLowerCase().includes(q)) return 1;
  return -1;
}

/** GET /api/paths?q=: workspace paths, then MCP resources matching (only resources once the query names a server and a colon). */
export async function completeMentions(cfg: ServerConfig, workspace: string, query: string, home: string = cfg.workspace): Promise<PathCompletionAnswer> {
  const q = query.toLowerCase();
  const serverPart = /^[a-z0-9_.-]+:/.test(q);
  const paths = serverPart ? { items: [], more: false, scanCapped: false } : withoutWithheld(cfg, { workspace, home }, completePaths(workspace, query));
  const max = BUDGET.MENTION_COMPLETIONS_MAX_ITEMS;
  const room = max - paths.items.length;
  if (room <= 0) return paths;
  const { items, more } = await resourceItems(getMcpHub(cfg.dataDir, cfg.workspace));
  const ranked = items
    .map((r) => ({ r, s: score(r, q) }))
    .filter((x) => x.s >= 0)
    .sort((a, b) => a.s - b.s);
  const found = ranked.slice(0, room).map((x) => ({ path: `${x.r.server}:${x.r.uri}`, dir: false }));
  return { items: [...paths.items, ...found], more: paths.more || ranked.length > room || (found.length > 0 && more), scanCapped: paths.scanCapped };
}

/** Completions without the paths a Read deny or ask rule of the settings files withholds (as searches and listings leave them out). */
function withoutWithheld(cfg: ServerConfig, at: { workspace: string; home: string }, r: PathCompletionAnswer): PathCompletionAnswer {
  const guard = readGuardFor(openDb(cfg.dataDir), { ...at, dataDir: cfg.dataDir })();
  if (!guard) return r;
  return { ...r, items: r.items.filter((i) => guard(path.join(at.workspace, i.path), i.dir) === undefined) };
}

/** GET /api/paths?check=: a resource mention names a running server that offers resources; a path is checked in the workspace. */
export function checkAnyMention(cfg: ServerConfig, workspace: string, p: string): MentionCheckAnswer {
  const r = resourceMention(p);
  if (!r) return checkMention(workspace, p);
  const hub = getMcpHub(cfg.dataDir, cfg.workspace);
  if (readerOf(hub, r.server)) return { path: p, ok: true };
  const offering = hub.configured().filter((e) => readerOf(hub, e.name)).map((e) => e.name);
  return { path: p, ok: false, error: `No running MCP server ${r.server} offers resources${offering.length ? ` (these do: ${offering.join(', ')})` : ''}. Start it on the settings page, or mention a workspace path.` };
}

type AttachmentPart = { type: 'data-attachment'; id: string; data: ClampDataParts['attachment'] };

/**
 * Each resource mention of a message read through dispatch with its server's read_resource tool, in the mention
 * reads' context (the person's hooks see the call). A server that offers no resources is said in the part. Never throws.
 */
export async function resourceMentionParts(text: string, ctx: ToolContext): Promise<AttachmentPart[]> {
  const mentions = parseMentions(text, BUDGET.MENTION_MAX_COUNT).filter((m) => resourceMention(m.path));
  if (mentions.length === 0) return [];
  // the turn's hub: a worktree session's servers run in its folder, under its home workspace's approvals
  const home = ctx.sessionId ? sessionHome(openDb(ctx.dataDir), ctx.sessionId) : undefined;
  const hub = getMcpHub(ctx.dataDir, ctx.workspace, process.env, home ?? ctx.workspace);
  await hub.prepare().catch(() => undefined);
  const reg = createRegistry(hub.tools());
  return Promise.all(
    mentions.map(async (m, i) => {
      const { server, uri } = resourceMention(m.path)!;
      const tool = readerOf(hub, server);
      const r = tool ? await dispatch(reg, tool, { uri }, ctx) : { status: 'error' as const, output: `No running MCP server ${server} offers resources; @${m.path} was not read.`, truncation: null };
      const data: ClampDataParts['attachment'] = { kind: 'mention', path: m.path, status: r.status === 'ok' ? 'ok' : 'error', text: r.output, truncation: r.truncation };
      return { type: 'data-attachment' as const, id: `resource-${i}`, data };
    }),
  );
}
