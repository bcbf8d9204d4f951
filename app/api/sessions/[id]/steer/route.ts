import type { SteerAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { steerTurn } from '@/lib/server/steer';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** "Send now": the running turn ends at the next safe point (after its running tool calls, before the next model step). */
export const POST = route({ ids: { id: 'Session' } }, (c): SteerAnswer => ({ steering: steerTurn(c.cfg.dataDir, c.ids.id) }));
