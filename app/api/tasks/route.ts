import type { TaskListAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { taskList } from '@/lib/server/tasks';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The background tasks of the request's workspace: { tasks }; ?session=<id>: that session's only. */
export const GET = route({}, (c): TaskListAnswer => {
  const session = c.url.searchParams.get('session');
  return { tasks: session ? taskList(c.forSession(session), session) : taskList(c.cfg) };
});
