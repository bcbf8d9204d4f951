'use client';

import { setNotifications, useNotifyState } from './use-notify-setting';

const WORDS = {
  unsupported: 'This browser shows no notifications.',
  blocked: "Notifications are blocked for this page in the browser's site settings.",
} as const;

/** The notification setting: a browser notification when a call waits or a turn ends while this tab is hidden. */
export function NotificationToggle() {
  const state = useNotifyState();
  if (state === 'unsupported' || state === 'blocked') return <span className="text-[11px] text-zinc-500">{WORDS[state]}</span>;
  if (state === 'ask') {
    return (
      <button type="button" onClick={() => void setNotifications(true)} className="rounded border border-zinc-300 px-1.5 py-0.5 text-[11px] text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800" data-testid="notify-allow">
        Allow notifications
      </button>
    );
  }
  return (
    <label className="flex items-center gap-1 text-[11px] text-zinc-600 dark:text-zinc-300" title="A browser notification when a call waits for you or a turn ends while this tab is hidden">
      <input type="checkbox" checked={state !== 'off'} onChange={(e) => void setNotifications(e.target.checked)} data-testid="notify-toggle" />
      Notify me when this tab is hidden
    </label>
  );
}
