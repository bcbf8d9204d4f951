import { BUDGET } from '@/lib/contract/budget';
import { retentionBody, type StorageAnswer } from '@/lib/contract/storage';
import { route } from '@/lib/server/route';
import { saveRetention, storageView } from '@/lib/server/retention';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The data dir's size by kind, the retention settings and the latest clean-up: StorageAnswer. */
export const GET = route({}, (c): Promise<StorageAnswer> => storageView(c.cfg));

/** Change the retention ({ maxAgeDays?, outputsMaxMegabytes? }); 400 naming a field out of range. */
export const PUT = route({ body: retentionBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<StorageAnswer> => saveRetention(c.cfg, c.body));
