import type { LogSearchAnswer } from '@/lib/contract/viewer';
import { searchFile, searchQuery } from '@/lib/server/file-search';
import { viewerPath } from '@/lib/server/files';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Where ?q= occurs in a whole spilled output or log in the data dir (?path= as for its pages): LogSearchAnswer. */
export const GET = route({}, (c): LogSearchAnswer => {
  const file = viewerPath(c.cfg.dataDir, c.url.searchParams.get('path') ?? '');
  return searchFile(file, searchQuery(c.url));
});
