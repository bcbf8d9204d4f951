import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { pageParams, readFilePage, taskLogFile } from '@/lib/server/files';
import type { FilePage } from '@/lib/contract/viewer';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One page of a task's log: ?stream= combined (both in arrival order; the default when that file exists), stdout or stderr. */
export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const id = routeId((await params).id, 'Task');
    const url = new URL(req.url);
    const file = taskLogFile(serverConfig().dataDir, id, url);
    const { offset, limit } = pageParams(url);
    return json<FilePage>(readFilePage(file, offset, limit));
  } catch (err) {
    return errorResponse(err);
  }
}
