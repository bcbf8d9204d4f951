import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { branchOf } from '@/lib/server/rewind';
import type { BranchAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One branch with its messages (read-only): { branch, messages }; 404 when unknown. */
export async function GET(_req: Request, { params }: { params: Promise<{ id: string; branchId: string }> }): Promise<Response> {
  try {
    const p = await params;
    return json<BranchAnswer>(branchOf(serverConfig(), routeId(p.id, 'Session'), routeId(p.branchId, 'Branch')));
  } catch (err) {
    return errorResponse(err);
  }
}
