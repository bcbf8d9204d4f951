import { errorResponse, serverConfig } from '@/lib/server/http';
import { taskEventStream } from '@/lib/server/task-events';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET(req: Request) {
  try {
    return taskEventStream(serverConfig().dataDir, req.signal);
  } catch (err) {
    return errorResponse(err);
  }
}
