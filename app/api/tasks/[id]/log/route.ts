import { errorResponse, HttpError, json, routeId, serverConfig } from '@/lib/server/http';
import { pageParams, readFilePage } from '@/lib/server/files';
import { getTaskManager } from '@/lib/tasks/manager';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const id = routeId((await params).id, 'Task');
    const url = new URL(req.url);
    const task = getTaskManager(serverConfig().dataDir).get(id);
    if (!task) throw new HttpError(404, `Task ${id} not found.`);
    const stream = url.searchParams.get('stream') ?? 'stdout';
    const paths = task.logPaths as Record<string, string | undefined>;
    const file = paths[stream];
    if (!file) throw new HttpError(400, `?stream= is one of ${Object.keys(paths).join(', ')}.`);
    const { offset, limit } = pageParams(url);
    return json(readFilePage(file, offset, limit));
  } catch (err) {
    return errorResponse(err);
  }
}
