import type { BranchAnswer } from '@/lib/contract/rest';
import { branchOf } from '@/lib/server/rewind';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One branch with its messages (read-only): { branch, messages }; 404 when unknown. */
export const GET = route({ ids: { id: 'Session', branchId: 'Branch' } }, (c): BranchAnswer => branchOf(c.cfg, c.ids.id, c.ids.branchId));
