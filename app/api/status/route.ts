import type { StatusAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { statusOf } from '@/lib/server/status';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The workspace, the data dir, the model, the mode new sessions start in and the sandbox (StatusAnswer). */
export const GET = route({}, (c): Promise<StatusAnswer> => statusOf(c.cfg));
