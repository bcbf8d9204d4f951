import { boardEventStream } from '@/lib/server/board-events';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The board, live: a BoardAnswer as a server-sent event at once and whenever it changes, until the page goes. */
export const GET = route({}, (c) => boardEventStream(c.cfg, c.req.signal));
