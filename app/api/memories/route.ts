import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { openDb } from '@/lib/store/db';
import { listMemories, searchMemories } from '@/lib/store/memories';
import { BUDGET } from '@/lib/contract/budget';
import type { MemoryListAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The workspace's memories for the page: { memories: Memory[], total }. Newest first; with ?q=
 * the matches, best first. At most MEMORY_LIST_MAX_ITEMS; total says how many there are.
 */
export async function GET(req: Request): Promise<Response> {
  try {
    const cfg = serverConfig();
    const db = openDb(cfg.dataDir);
    const q = new URL(req.url).searchParams.get('q')?.trim() ?? '';
    const found = q ? searchMemories(db, cfg.workspace, q, BUDGET.MEMORY_LIST_MAX_ITEMS) : listMemories(db, cfg.workspace, BUDGET.MEMORY_LIST_MAX_ITEMS);
    return json<MemoryListAnswer>({ memories: found.memories, total: found.total });
  } catch (err) {
    return errorResponse(err);
  }
}
