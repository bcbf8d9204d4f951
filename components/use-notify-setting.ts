'use client';

import { useSyncExternalStore } from 'react';

/** The page's notification setting, kept in this browser ("off" turns notifications off; on by default). */
const SETTING_KEY = 'clamp.notifications';
/** Set once the browser's permission was asked: it is asked once, never again by itself. */
const ASKED_KEY = 'clamp.notifications.asked';
const CHANGE = 'clamp:notify-setting';

export type NotifyState = 'unsupported' | 'off' | 'blocked' | 'ask' | 'on';

function read(): NotifyState {
  if (typeof window === 'undefined' || typeof Notification === 'undefined') return 'unsupported';
  if (localStorage.getItem(SETTING_KEY) === 'off') return 'off';
  if (Notification.permission === 'denied') return 'blocked';
  return Notification.permission === 'granted' ? 'on' : 'ask';
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener(CHANGE, onChange);
  window.addEventListener('storage', onChange);
  return () => {
    window.removeEventListener(CHANGE, onChange);
    window.removeEventListener('storage', onChange);
  };
}

/** Whether notifications are shown: on (setting on, permission granted), off, blocked by the browser, or not asked yet. */
export function useNotifyState(): NotifyState {
  return useSyncExternalStore(subscribe, read, () => 'unsupported');
}

/** Whether a notification may be shown now (read at the moment: the setting and the browser's permission). */
export function notificationsOn(): boolean {
  return read() === 'on';
}

/** Turn notifications on or off; turning them on asks the browser's permission (call it from the person's click). */
export async function setNotifications(on: boolean): Promise<void> {
  localStorage.setItem(SETTING_KEY, on ? 'on' : 'off');
  if (on && typeof Notification !== 'undefined' && Notification.permission === 'default') {
    localStorage.setItem(ASKED_KEY, '1');
    await Notification.requestPermission().catch(() => undefined);
  }
  window.dispatchEvent(new Event(CHANGE));
}

/** Ask the browser's permission the first time the person clicks something of the inbox or the board; never again. */
export function askNotificationsOnce(): void {
  if (read() !== 'ask' || localStorage.getItem(ASKED_KEY)) return;
  void setNotifications(true);
}
