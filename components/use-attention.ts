'use client';

import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { BoardAnswer } from '@/lib/contract/board';
import { attentionEvents, titleWithCount, type AttentionEvent } from '@/lib/ui/attention';
import { setFaviconBadge } from '@/lib/ui/favicon';
import { loadNotifySetting, notificationsOn } from './use-notify-setting';

function subscribeVisibility(onChange: () => void): () => void {
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
}

const isHidden = () => document.visibilityState === 'hidden' || document.hidden;

/** True while the page is hidden (another tab, a minimised window). */
export function usePageHidden(): boolean {
  return useSyncExternalStore(subscribeVisibility, isHidden, () => false);
}

function notify(e: AttentionEvent, onOpen: (sessionId: string) => void): void {
  try {
    const n = new Notification(e.title, { body: e.body, tag: e.tag });
    n.onclick = () => {
      window.focus();
      onOpen(e.sessionId);
      n.close();
    };
  } catch {
    // a browser that allows notifications only from a service worker: the title and the icon still say it
  }
}

/**
 * What the page does when something waits for the person: while it is hidden, a browser notification for each
 * call that begins waiting and each turn that ends (when the setting and the browser allow), and the tab's title
 * and icon carry the count (calls waiting plus turns that ended unseen). While it is visible the count is the
 * calls waiting in sessions not on screen, and nothing is notified.
 */
export function useAttention(board: BoardAnswer | undefined, onScreenId: string | null, onOpen: (sessionId: string) => void): void {
  const hidden = usePageHidden();
  const prev = useRef<BoardAnswer | null>(null);
  const [endedUnseen, setEndedUnseen] = useState<ReadonlySet<string>>(() => new Set());
  const open = useRef(onOpen);
  useEffect(() => {
    open.current = onOpen;
  });
  // the setting is the server's: read it before anything is notified
  useEffect(() => void loadNotifySetting(), []);

  useEffect(() => {
    if (!board) return;
    const events = attentionEvents(prev.current, board);
    prev.current = board;
    if (!isHidden() || events.length === 0) return;
    if (notificationsOn()) for (const e of events) notify(e, (id) => open.current(id));
    const ended = events.filter((e) => e.tag.startsWith('turn:'));
    if (ended.length) setEndedUnseen((s) => new Set([...s, ...ended.map((e) => e.tag)]));
  }, [board]);

  // seen once the page shows again
  if (!hidden && endedUnseen.size) setEndedUnseen(new Set());

  const inbox = board?.inbox ?? [];
  const count = hidden ? inbox.length + endedUnseen.size : inbox.filter((i) => i.topId !== onScreenId).length;
  const base = useRef<string | null>(null);
  useEffect(() => {
    base.current ??= document.title.replace(/^\(\d+\)\s*/, '') || 'Clamp';
    document.title = titleWithCount(base.current, count);
    setFaviconBadge(count);
  }, [count]);
}
