import type { StopAnswer } from '@/lib/contract/rest';
import { stopTurn } from '@/lib/server/chat';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Stop the session's running turn: { stopped }. */
export const POST = route({ ids: { id: 'Session' } }, (c): StopAnswer => ({ stopped: stopTurn(c.ids.id) }));
