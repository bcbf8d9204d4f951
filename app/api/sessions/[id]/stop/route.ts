import { stopTurn } from '@/lib/server/chat';
import { errorResponse, json, routeId } from '@/lib/server/http';
import type { StopAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    return json<StopAnswer>({ stopped: stopTurn(routeId(id, 'Session')) });
  } catch (err) {
    return errorResponse(err);
  }
}
