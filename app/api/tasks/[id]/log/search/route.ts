import type { LogSearchAnswer } from '@/lib/contract/viewer';
import { searchFile, searchQuery } from '@/lib/server/file-search';
import { taskLogFile } from '@/lib/server/files';
import { route } from '@/lib/server/route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Where ?q= occurs in a task's whole log on disk (?stream= as for the log's pages): LogSearchAnswer. */
export const GET = route({ ids: { id: 'Task' } }, (c): LogSearchAnswer => searchFile(taskLogFile(c.cfg.dataDir, c.ids.id, c.url), searchQuery(c.url)));
