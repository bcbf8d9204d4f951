import type { SessionLedger } from '@/lib/contract/protocol';
import { ledgerOfSession } from '@/lib/server/context';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The session's ledger (SessionLedger): every step, oldest first, and the totals; 404 when unknown. */
export const GET = route({ ids: { id: 'Session' } }, (c): SessionLedger => ledgerOfSession(c.cfg, c.ids.id));
