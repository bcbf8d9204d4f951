import { errorResponse, json, serverConfig } from '@/lib/server/http';
import { pageParams, readFilePage, viewerPath } from '@/lib/server/files';
import type { FilePage } from '@/lib/contract/protocol';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET(req: Request) {
  try {
    const url = new URL(req.url);
    const { offset, limit } = pageParams(url);
    const file = viewerPath(serverConfig().dataDir, url.searchParams.get('path') ?? '');
    return json<FilePage>(readFilePage(file, offset, limit));
  } catch (err) {
    return errorResponse(err);
  }
}
