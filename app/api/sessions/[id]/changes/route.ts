import type { ChangesAnswer } from '@/lib/contract/rest';
import { sessionChanges } from '@/lib/server/changes';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Every file that differs from the session's start, with its diff: ChangesAnswer. */
export const GET = route({ ids: { id: 'Session' } }, (c): Promise<ChangesAnswer> => sessionChanges(c.cfg, c.ids.id));
