import type { CleanupAnswer } from '@/lib/contract/storage';
import { route } from '@/lib/server/route';
import { cleanUpNow } from '@/lib/server/retention';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Clean up the data dir now (logs and spills past the period or the budget, checkpoint repositories): CleanupAnswer. */
export const POST = route({}, (c): Promise<CleanupAnswer> => cleanUpNow(c.cfg));
