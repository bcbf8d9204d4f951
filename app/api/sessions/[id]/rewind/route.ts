import { errorResponse, HttpError, json, parseJson, routeId, serverConfig } from '@/lib/server/http';
import { rewind, rewindPreview, TasksRunningError } from '@/lib/server/rewind';
import { BUDGET } from '@/lib/contract/budget';
import { rewindBody, type RewindAnswer, type RewindPreview, type RewindTasksConflict } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

/** ?messageId=M: what a rewind to before user message M would change (RewindPreview). */
export async function GET(req: Request, { params }: Params): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const messageId = new URL(req.url).searchParams.get('messageId');
    if (!messageId) throw new HttpError(400, 'Name the user message to rewind to: ?messageId=<id>.');
    return json<RewindPreview>(await rewindPreview(serverConfig(), id, messageId));
  } catch (err) {
    return errorResponse(err);
  }
}

/** { messageId | checkpointId, code, conversation, stopTasks? }: RewindAnswer; 409 while a turn or (without stopTasks) a background task runs. */
export async function POST(req: Request, { params }: Params): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const b = await parseJson(req, rewindBody, BUDGET.API_BODY_MAX_BYTES);
    return json<RewindAnswer>(await rewind(serverConfig(), id, b));
  } catch (err) {
    if (err instanceof TasksRunningError) return json<RewindTasksConflict>({ error: err.message, runningTasks: err.runningTasks }, 409);
    return errorResponse(err);
  }
}
