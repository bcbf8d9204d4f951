import { errorResponse, json, parseJson, routeId, serverConfig } from '@/lib/server/http';
import { commitChanges } from '@/lib/server/changes';
import { BUDGET } from '@/lib/contract/budget';
import { commitChangesBody, type CommitChangesAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** { paths, message }: git_commit of these paths through dispatch (the click approves it): { ok, text }. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const b = await parseJson(req, commitChangesBody, BUDGET.API_BODY_MAX_BYTES);
    return json<CommitChangesAnswer>(await commitChanges(serverConfig(), id, b));
  } catch (err) {
    return errorResponse(err);
  }
}
