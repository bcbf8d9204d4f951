import type { MentionCheckAnswer, PathCompletionAnswer } from '@/lib/contract/rest';
import { HttpError } from '@/lib/server/http';
import { checkAnyMention, completeMentions } from '@/lib/server/mcp-mentions';
import { route } from '@/lib/server/route';
import { sessionFolder } from '@/lib/server/worktrees';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** ?q=<text after @>: completions for an @-mention (paths, then MCP resources as <server>:<uri>); ?check=<path>: whether it names a workspace file or a server's resource; &session=<id>: in that session's folder. */
export const GET = route({}, async (c): Promise<MentionCheckAnswer | PathCompletionAnswer> => {
  // ?session=<id>: the session's folder (its own worktree, when it has one)
  const session = c.url.searchParams.get('session');
  const cfg = session ? c.forSession(session) : c.cfg;
  const workspace = session ? sessionFolder(cfg, session) : c.cfg.workspace;
  const check = c.url.searchParams.get('check');
  if (check !== null) return checkAnyMention(c.cfg, workspace, check.slice(0, 4096));
  const q = c.url.searchParams.get('q');
  if (q === null) throw new HttpError(400, 'Ask with ?q=<the text after @> for completions, or ?check=<path> to check a mention.');
  // the settings files' rules are the session's workspace's (a worktree's are its repository's)
  return completeMentions(c.cfg, workspace, q.slice(0, 4096), cfg.workspace);
});
