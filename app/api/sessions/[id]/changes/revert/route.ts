import { BUDGET } from '@/lib/contract/budget';
import { revertBody, type RevertAnswer } from '@/lib/contract/rest';
import { revertFile } from '@/lib/server/changes';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** { path }: the file back to its state at the session's start: { reverted }. */
export const POST = route({ ids: { id: 'Session' }, body: revertBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<RevertAnswer> => revertFile(c.cfg, c.ids.id, c.body.path));
