import type { ContinueAnswer } from '@/lib/contract/board';
import { continueSession } from '@/lib/server/continue';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Resume a turn that stopped for approvals once all are answered, on the server (ContinueAnswer); 409 while a turn runs or when nothing waits. */
export const POST = route({ ids: { id: 'Session' } }, (c): Promise<ContinueAnswer> => continueSession(c.cfg, c.ids.id));
