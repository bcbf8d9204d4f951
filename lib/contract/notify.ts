import { z } from 'zod';

/**
 * The notification setting, kept in the data dir's settings so it holds in every browser: on (the default), a
 * browser notification when a call waits or a turn ends while the page is hidden (where the browser allows it); off,
 * none. GET and PUT /api/settings/notifications.
 */
export interface NotifySettings {
  on: boolean;
}

/** PUT /api/settings/notifications: { on: true | false }. */
export const notifySettingsBody = z.strictObject({ on: z.boolean() });
export type NotifySettingsBody = z.infer<typeof notifySettingsBody>;
