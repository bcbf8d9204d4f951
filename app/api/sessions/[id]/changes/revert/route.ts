import { errorResponse, json, parseJson, routeId, serverConfig } from '@/lib/server/http';
import { revertFile } from '@/lib/server/changes';
import { BUDGET } from '@/lib/contract/budget';
import { revertBody, type RevertAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** { path }: the file back to its state at the session's start: { reverted }. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const b = await parseJson(req, revertBody, BUDGET.API_BODY_MAX_BYTES);
    return json<RevertAnswer>(await revertFile(serverConfig(), id, b.path));
  } catch (err) {
    return errorResponse(err);
  }
}
