import type { TaskAnswer } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { killTask, taskOf } from '@/lib/server/tasks';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One background task: { task }; 404 when unknown. */
export const GET = route({ ids: { id: 'Task' } }, (c): TaskAnswer => ({ task: taskOf(c.cfg, c.ids.id) }));

/** Stop a background task: { task } as it ended; 404 when unknown. */
export const DELETE = route({ ids: { id: 'Task' } }, async (c): Promise<TaskAnswer> => ({ task: await killTask(c.cfg, c.ids.id) }));
