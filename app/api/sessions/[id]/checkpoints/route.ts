import type { CheckpointListAnswer } from '@/lib/contract/rest';
import { checkpointsOf } from '@/lib/server/rewind';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The session's checkpoints, oldest first: { checkpoints }; 404 for an unknown session. */
export const GET = route({ ids: { id: 'Session' } }, (c): CheckpointListAnswer => checkpointsOf(c.cfg, c.ids.id));
