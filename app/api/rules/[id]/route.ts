import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { deleteRule } from '@/lib/store/rules';
import type { DeletedAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Remove a rule of this workspace: { deleted: id }; 404 when the workspace has no such rule. */
export async function DELETE(_req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = routeId((await params).id, 'Rule');
    const cfg = serverConfig();
    if (!deleteRule(openDb(cfg.dataDir), cfg.workspace, id)) return json({ error: `Rule ${id} not found. List the rules with GET /api/rules.` }, 404);
    return json<DeletedAnswer>({ deleted: id });
  } catch (err) {
    return errorResponse(err);
  }
}
