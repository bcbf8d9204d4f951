import { BUDGET } from '@/lib/contract/budget';
import { diagnosticsSettingsBody, type DiagnosticsSettingsView } from '@/lib/contract/diagnostics';
import { route } from '@/lib/server/route';
import { diagnosticsSettingsOf, saveDiagnosticsSettings } from '@/lib/server/saved';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Diagnostics after edits: on or off (and whether CLAMP_DIAGNOSTICS decides), and the language servers' states. */
export const GET = route({}, (c): DiagnosticsSettingsView => diagnosticsSettingsOf(c.cfg));

/** Turn diagnostics after edits on or off ({ enabled }); off stops the running language servers. */
export const PUT = route({ body: diagnosticsSettingsBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): Promise<DiagnosticsSettingsView> => saveDiagnosticsSettings(c.cfg, c.body));
