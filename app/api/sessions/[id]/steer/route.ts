import { requestSteer } from '@/lib/agent/steer';
import { isTurnRunning } from '@/lib/server/chat';
import { errorResponse, json, routeId } from '@/lib/server/http';
import type { SteerAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** "Send now": the running turn ends at the next safe point (after its running tool calls, before the next model step). */
export async function POST(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const id = routeId((await params).id, 'Session');
    const running = isTurnRunning(id);
    if (running) requestSteer(id);
    return json<SteerAnswer>({ steering: running });
  } catch (err) {
    return errorResponse(err);
  }
}
