import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { sessionChanges } from '@/lib/server/changes';
import type { ChangesAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Every file that differs from the session's start, with its diff: ChangesAnswer. */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    return json<ChangesAnswer>(await sessionChanges(serverConfig(), id));
  } catch (err) {
    return errorResponse(err);
  }
}
