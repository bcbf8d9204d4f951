import type { FilePage } from '@/lib/contract/protocol';
import { pageParams, readFilePage, viewerPath } from '@/lib/server/files';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One page of a spilled output or log in the data dir (?path=, ?offset=, ?limit=): FilePage. */
export const GET = route({}, (c): FilePage => {
  const { offset, limit } = pageParams(c.url);
  const file = viewerPath(c.cfg.dataDir, c.url.searchParams.get('path') ?? '');
  return readFilePage(file, offset, limit);
});
