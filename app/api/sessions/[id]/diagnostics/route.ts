import type { LateDiagnosticsAnswer } from '@/lib/contract/diagnostics';
import { route } from '@/lib/server/route';
import { sessionLateDiagnostics } from '@/lib/server/sessions';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The session's late diagnostics (LateDiagnosticsAnswer): reports that arrived after their calls' results, and the checks going on; 404 when unknown. */
export const GET = route({ ids: { id: 'Session' } }, (c): LateDiagnosticsAnswer => sessionLateDiagnostics(c.cfg, c.ids.id));
