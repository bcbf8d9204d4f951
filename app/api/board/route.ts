import type { BoardAnswer } from '@/lib/contract/board';
import { boardOf } from '@/lib/server/board';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Every session of the workspace as it stands, and every call waiting for the person (BoardAnswer). */
export const GET = route({}, (c): BoardAnswer => boardOf(c.cfg));
