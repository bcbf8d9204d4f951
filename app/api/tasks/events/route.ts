import { route } from '@/lib/server/route';
import { taskEventStream } from '@/lib/server/task-events';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The task panel's live feed: every task's changes as server-sent events, until the page goes. */
export const GET = route({}, (c) => taskEventStream(c.cfg.dataDir, c.req.signal));
