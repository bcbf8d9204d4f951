import type { FilePage } from '@/lib/contract/viewer';
import { pageParams, readFilePage, taskLogFile } from '@/lib/server/files';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One page of a task's log: ?stream= combined (both in arrival order; the default when that file exists), stdout or stderr. */
export const GET = route({ ids: { id: 'Task' } }, (c): FilePage => {
  const file = taskLogFile(c.cfg.dataDir, c.ids.id, c.url);
  const { offset, limit } = pageParams(c.url);
  return readFilePage(file, offset, limit);
});
