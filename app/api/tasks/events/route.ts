import { route } from '@/lib/server/route';
import { taskEventStream } from '@/lib/server/task-events';
import { taskOfWorkspace } from '@/lib/server/tasks';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The task panel's live feed: the changes of the workspace's tasks as server-sent events, until the page goes. */
export const GET = route({}, (c) => taskEventStream(c.cfg.dataDir, c.req.signal, taskOfWorkspace(c.cfg)));
