import { errorResponse, json, routeId, serverConfig } from '@/lib/server/http';
import { taskLogFile } from '@/lib/server/files';
import { searchFile, searchQuery } from '@/lib/server/file-search';
import type { LogSearchAnswer } from '@/lib/contract/viewer';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Where ?q= occurs in a task's whole log on disk (?stream= as for the log's pages): LogSearchAnswer. */
export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const id = routeId((await params).id, 'Task');
    const url = new URL(req.url);
    return json<LogSearchAnswer>(searchFile(taskLogFile(serverConfig().dataDir, id, url), searchQuery(url)));
  } catch (err) {
    return errorResponse(err);
  }
}
