'use client';

import { useSyncExternalStore } from 'react';
import type { NotifySettings } from '@/lib/contract/notify';
import { fetchJson } from './api';

/**
 * The notification setting is the server's (GET/PUT /api/settings/notifications), so it holds in every browser; this
 * browser keeps a copy ("off" turns notifications off; on by default), read before the server's value arrives or
 * when the server cannot be reached.
 */
const SETTING_KEY = 'clamp.notifications';
const URL = '/api/settings/notifications';
/** Set once the browser's permission was asked: it is asked once, never again by itself. */
const ASKED_KEY = 'clamp.notifications.asked';
const CHANGE = 'clamp:notify-setting';

export type NotifyState = 'unsupported' | 'off' | 'blocked' | 'ask' | 'on';

/** The server's value once read (null: not yet, or it could not be reached). */
let serverOn: boolean | null = null;
let loading: Promise<void> | null = null;
/** Changes made in this page: a read that began before one does not undo it. */
let writes = 0;

const changed = () => window.dispatchEvent(new Event(CHANGE));

/** Read the server's setting once (again after a failure), keeping this browser's copy in step. */
function load(): Promise<void> {
  const at = writes;
  loading ??= fetchJson<NotifySettings>(URL).then(
    (s) => {
      if (at !== writes) return;
      serverOn = s.on;
      localStorage.setItem(SETTING_KEY, s.on ? 'on' : 'off');
      changed();
    },
    () => {
      loading = null;
    },
  );
  return loading;
}

function settingOn(): boolean {
  return serverOn ?? localStorage.getItem(SETTING_KEY) !== 'off';
}

function read(): NotifyState {
  if (typeof window === 'undefined' || typeof Notification === 'undefined') return 'unsupported';
  if (!settingOn()) return 'off';
  if (Notification.permission === 'denied') return 'blocked';
  return Notification.permission === 'granted' ? 'on' : 'ask';
}

/** Another tab of this browser changed the setting: its copy is the newer value. */
function onStorage(e: StorageEvent): void {
  if (e.key !== SETTING_KEY) return;
  serverOn = e.newValue !== 'off';
  changed();
}

function subscribe(onChange: () => void): () => void {
  void load();
  window.addEventListener(CHANGE, onChange);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(CHANGE, onChange);
    window.removeEventListener('storage', onStorage);
  };
}

/** Whether notifications are shown: on (setting on, permission granted), off, blocked by the browser, or not asked yet. */
export function useNotifyState(): NotifyState {
  return useSyncExternalStore(subscribe, read, () => 'unsupported');
}

/** Read the server's setting now (the page calls it when it starts, so the first notification already follows it). */
export function loadNotifySetting(): Promise<void> {
  return typeof window === 'undefined' ? Promise.resolve() : load();
}

/** Whether a notification may be shown now (read at the moment: the setting and the browser's permission). */
export function notificationsOn(): boolean {
  return read() === 'on';
}

/**
 * Turn notifications on or off, on the server (for every browser) and in this browser's copy (kept if the server
 * cannot be reached); turning them on asks the browser's permission (call it from the person's click).
 */
export async function setNotifications(on: boolean): Promise<void> {
  writes++;
  serverOn = on;
  localStorage.setItem(SETTING_KEY, on ? 'on' : 'off');
  changed();
  const saved = fetchJson<NotifySettings>(URL, { method: 'PUT', body: JSON.stringify({ on }) }).then(
    (s) => {
      serverOn = s.on;
    },
    (err: unknown) => console.error('clamp: the notification setting was kept in this browser only:', err),
  );
  if (on && typeof Notification !== 'undefined' && Notification.permission === 'default') {
    localStorage.setItem(ASKED_KEY, '1');
    await Notification.requestPermission().catch(() => undefined);
  }
  await saved;
  changed();
}

/**
 * Ask the browser's permission the first time the person clicks something of the inbox or the board; never again.
 * It asks only: the setting stays as it is (a browser that has not read the server's yet must not turn it on).
 */
export function askNotificationsOnce(): void {
  if (read() !== 'ask' || localStorage.getItem(ASKED_KEY)) return;
  localStorage.setItem(ASKED_KEY, '1');
  void Notification.requestPermission()
    .catch(() => undefined)
    .then(changed);
}
