import type { MemoryListAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { memoryList } from '@/lib/server/saved';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The workspace's memories for the page: { memories: Memory[], total }. Newest first; with ?q=
 * the matches, best first. At most MEMORY_LIST_MAX_ITEMS; total says how many there are.
 */
export const GET = route({}, (c): MemoryListAnswer => memoryList(c.cfg, c.url.searchParams.get('q')?.trim() ?? ''));
