import type { MentionCheckAnswer, PathCompletionAnswer } from '@/lib/contract/rest';
import { errorResponse, HttpError, json, serverConfig } from '@/lib/server/http';
import { checkMention, completePaths } from '@/lib/server/mention-paths';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** ?q=<text after @>: completions for an @-mention; ?check=<path>: whether it names a workspace file. */
export async function GET(req: Request): Promise<Response> {
  try {
    const url = new URL(req.url);
    const { workspace } = serverConfig();
    const check = url.searchParams.get('check');
    if (check !== null) return json<MentionCheckAnswer>(checkMention(workspace, check.slice(0, 4096)));
    const q = url.searchParams.get('q');
    if (q === null) throw new HttpError(400, 'Ask with ?q=<the text after @> for completions, or ?check=<path> to check a mention.');
    return json<PathCompletionAnswer>(completePaths(workspace, q.slice(0, 4096)));
  } catch (err) {
    return errorResponse(err);
  }
}
