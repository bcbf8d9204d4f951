import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { viewerPath } from '@/lib/server/files';
import { searchFile, searchQuery } from '@/lib/server/file-search';
import type { LogSearchAnswer } from '@/lib/contract/viewer';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Where ?q= occurs in a whole spilled output or log in the data dir (?path= as for its pages): LogSearchAnswer. */
export async function GET(req: Request) {
  try {
    const url = new URL(req.url);
    const file = viewerPath(serverConfig().dataDir, url.searchParams.get('path') ?? '');
    return json<LogSearchAnswer>(searchFile(file, searchQuery(url)));
  } catch (err) {
    return errorResponse(err);
  }
}
