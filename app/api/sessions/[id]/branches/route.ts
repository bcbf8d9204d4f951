import type { BranchListAnswer } from '@/lib/contract/rest';
import { branchesOf } from '@/lib/server/rewind';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The branches rewinds kept, newest first: { branches }. */
export const GET = route({ ids: { id: 'Session' } }, (c): BranchListAnswer => branchesOf(c.cfg, c.ids.id));
