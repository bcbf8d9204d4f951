import { errorResponse, HttpError, json, routeId, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { deleteMemory } from '@/lib/store/memories';
import type { DeletedAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Forget a memory of this workspace: { deleted: id }; 404 when the workspace has no such memory. */
export async function DELETE(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const raw = routeId((await params).id, 'Memory');
    // memory ids are row numbers: anything else cannot name one
    if (!/^[1-9]\d{0,15}$/.test(raw)) throw new HttpError(404, `Memory ${raw} not found.`);
    const id = Number(raw);
    const cfg = serverConfig();
    if (!deleteMemory(openDb(cfg.dataDir), cfg.workspace, id)) return json({ error: `Memory ${id} not found. List the memories with GET /api/memories.` }, 404);
    return json<DeletedAnswer<number>>({ deleted: id });
  } catch (err) {
    return errorResponse(err);
  }
}
