import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { branchesOf } from '@/lib/server/rewind';
import type { BranchListAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The branches rewinds kept, newest first: { branches }. */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    return json<BranchListAnswer>(branchesOf(serverConfig(), id));
  } catch (err) {
    return errorResponse(err);
  }
}
