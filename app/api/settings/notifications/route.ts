import { BUDGET } from '@/lib/contract/budget';
import { notifySettingsBody, type NotifySettings } from '@/lib/contract/notify';
import { route } from '@/lib/server/route';
import { notifySettingsOf, saveNotifySettings } from '@/lib/server/saved';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The notification setting, the same in every browser: NotifySettings ({ on }, on unless turned off). */
export const GET = route({}, (c): NotifySettings => notifySettingsOf(c.cfg));

/** Turn notifications on or off ({ on: boolean }). */
export const PUT = route({ body: notifySettingsBody, maxBytes: BUDGET.API_BODY_MAX_BYTES }, (c): NotifySettings => saveNotifySettings(c.cfg, c.body));
