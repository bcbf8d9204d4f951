import fs from 'node:fs';
import { errorResponse, HttpError, json, routeId, serverConfig } from '@/lib/server/http';
import { pageParams, readFilePage } from '@/lib/server/files';
import { getTaskManager, type TaskInfo } from '@/lib/tasks/manager';
import type { FilePage } from '@/lib/contract/protocol';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const STREAMS = ['combined', 'stdout', 'stderr'] as const;
type LogStream = (typeof STREAMS)[number];

function logFile(task: TaskInfo, stream: LogStream): string {
  return stream === 'combined' ? task.combinedLogPath : task.logPaths[stream];
}

/** One page of a task's log: ?stream= combined (both in arrival order; the default when that file exists), stdout or stderr. */
export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const id = routeId((await params).id, 'Task');
    const url = new URL(req.url);
    const task = getTaskManager(serverConfig().dataDir).get(id);
    if (!task) throw new HttpError(404, `Task ${id} not found.`);
    const asked = url.searchParams.get('stream');
    if (asked !== null && !(STREAMS as readonly string[]).includes(asked)) throw new HttpError(400, `?stream= is one of ${STREAMS.join(', ')}.`);
    const stream: LogStream = (asked as LogStream | null) ?? (fs.existsSync(task.combinedLogPath) ? 'combined' : 'stdout');
    const file = logFile(task, stream);
    if (!fs.existsSync(file)) throw new HttpError(404, `Task ${id} has no ${stream} log on disk (it could not be written).`);
    const { offset, limit } = pageParams(url);
    return json<FilePage>(readFilePage(file, offset, limit));
  } catch (err) {
    return errorResponse(err);
  }
}
