import { errorResponse, json, parseJson, routeId, serverConfig } from '@/lib/server/http';
import { compactSession } from '@/lib/server/context';
import { BUDGET } from '@/lib/contract/budget';
import { compactBody } from '@/lib/contract/rest';
import type { CompactionInfo } from '@/lib/contract/protocol';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Compact the session now ({ focus? }): the stored data-compaction (CompactionInfo); 409 while a turn runs or with nothing to compact. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Session');
    const b = await parseJson(req, compactBody, BUDGET.API_BODY_MAX_BYTES);
    return json<CompactionInfo>(await compactSession(serverConfig(), id, b.focus || undefined));
  } catch (err) {
    return errorResponse(err);
  }
}
