import { errorResponse, HttpError, json, routeId, serverConfig } from '@/lib/server/http';
import { getTaskManager } from '@/lib/tasks/manager';
import type { TaskAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const id = routeId((await params).id, 'Task');
    const task = getTaskManager(serverConfig().dataDir).get(id);
    if (!task) throw new HttpError(404, `Task ${id} not found. Tasks from before a restart are gone; their logs stay in the data dir.`);
    return json<TaskAnswer>({ task });
  } catch (err) {
    return errorResponse(err);
  }
}

export async function DELETE(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const id = routeId((await params).id, 'Task');
    const task = await getTaskManager(serverConfig().dataDir).kill(id, 'user');
    if (!task) throw new HttpError(404, `Task ${id} not found.`);
    return json<TaskAnswer>({ task });
  } catch (err) {
    return errorResponse(err);
  }
}
