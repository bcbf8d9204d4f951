import { BUDGET } from '@/lib/contract/budget';
import type { CompactionInfo } from '@/lib/contract/protocol';
import { compactBody } from '@/lib/contract/rest';
import { compactSession } from '@/lib/server/context';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Compact the session now ({ focus? }): the stored data-compaction (CompactionInfo); 409 while a turn runs or with nothing to compact. */
export const POST = route({ ids: { id: 'Session' }, body: compactBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<CompactionInfo> => compactSession(c.cfg, c.ids.id, c.body.focus || undefined));
