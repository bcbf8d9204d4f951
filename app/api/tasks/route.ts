import type { TaskListAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { taskList } from '@/lib/server/tasks';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Every background task: { tasks }. */
export const GET = route({}, (c): TaskListAnswer => ({ tasks: taskList(c.cfg) }));
