import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { getTaskManager } from '@/lib/tasks/manager';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    return json({ tasks: getTaskManager(serverConfig().dataDir).list() });
  } catch (err) {
    return errorResponse(err);
  }
}
