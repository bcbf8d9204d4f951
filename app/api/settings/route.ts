import { BUDGET } from '@/lib/contract/budget';
import type { SettingsView } from '@/lib/contract/protocol';
import { settingsUpdateBody } from '@/lib/contract/rest';
import { route } from '@/lib/server/route';
import { saveSettings, settingsOf } from '@/lib/server/saved';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The model settings and which API keys are set (SettingsView); never the keys themselves. */
export const GET = route({}, (c): SettingsView => settingsOf(c.cfg));

/** Save any subset of the settings and keys (SettingsUpdate; a key set to null is removed): the new SettingsView. */
export const PUT = route({ body: settingsUpdateBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): SettingsView => saveSettings(c.cfg, c.body));
