import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { getTaskManager } from '@/lib/tasks/manager';
import type { TaskListAnswer } from '@/lib/contract/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    return json<TaskListAnswer>({ tasks: getTaskManager(serverConfig().dataDir).list() });
  } catch (err) {
    return errorResponse(err);
  }
}
