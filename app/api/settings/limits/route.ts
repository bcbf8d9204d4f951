import { BUDGET } from '@/lib/contract/budget';
import type { LimitSettingsView } from '@/lib/contract/limits';
import { limitSettingsBody } from '@/lib/contract/request-bodies';
import { route } from '@/lib/server/route';
import { limitSettingsView, saveLimitSettings } from '@/lib/server/limits';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The spending limits of the settings (per session and per day, tokens and US dollars) and today's spending: LimitSettingsView. */
export const GET = route({}, (c): LimitSettingsView => limitSettingsView(c.cfg));

/** Change any of them ({ sessionTokens?, sessionCostUsd?, dayTokens?, dayCostUsd? }, null removes one). */
export const PUT = route({ body: limitSettingsBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): LimitSettingsView => saveLimitSettings(c.cfg, c.body));
