import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { checkpointsOf } from '@/lib/server/rewind';
import type { CheckpointListAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The session's checkpoints, oldest first: { checkpoints }; 404 for an unknown session. */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    return json<CheckpointListAnswer>(checkpointsOf(serverConfig(), id));
  } catch (err) {
    return errorResponse(err);
  }
}
