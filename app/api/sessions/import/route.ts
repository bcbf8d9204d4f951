import { BUDGET } from '@/lib/contract/budget';
import type { SessionAnswer } from '@/lib/contract/rest';
import { sessionExportSchema } from '@/lib/contract/session-export';
import { route } from '@/lib/server/route';
import { importAsSession } from '@/lib/server/sessions';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Import a JSON export (GET /api/sessions/[id]/export) as a new session: 201 { session }. */
export const POST = route({ body: sessionExportSchema, maxBytes: BUDGET.SESSION_IMPORT_MAX_BYTES, status: 201 }, (c): SessionAnswer => ({ session: importAsSession(c.cfg, c.body) }));
