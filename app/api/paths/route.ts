import type { MentionCheckAnswer, PathCompletionAnswer } from '@/lib/contract/rest';
import { HttpError } from '@/lib/server/http';
import { checkMention, completePaths } from '@/lib/server/mention-paths';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** ?q=<text after @>: completions for an @-mention; ?check=<path>: whether it names a workspace file. */
export const GET = route({}, (c): MentionCheckAnswer | PathCompletionAnswer => {
  const { workspace } = c.cfg;
  const check = c.url.searchParams.get('check');
  if (check !== null) return checkMention(workspace, check.slice(0, 4096));
  const q = c.url.searchParams.get('q');
  if (q === null) throw new HttpError(400, 'Ask with ?q=<the text after @> for completions, or ?check=<path> to check a mention.');
  return completePaths(workspace, q.slice(0, 4096));
});
