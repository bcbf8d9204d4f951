'use client';

import { useEffect, useRef, useState } from 'react';
import { steerTurn } from './composer-api';
import type { ComposerMessage } from './composer';
import type { QueuedMessage } from './composer-queue';

const newId = () => Math.random().toString(36).slice(2, 10);

export interface QueueHost {
  sessionId: string;
  busy: boolean;
  blocked?: string;
  disabled?: string;
  errored: boolean;
  onSend: (m: ComposerMessage) => void;
}

export interface MessageQueue {
  queue: QueuedMessage[];
  /** send now, or queue while a turn runs, an approval waits or others wait before it */
  submit: (m: ComposerMessage) => void;
  /** "Send now" on a queued message: it goes first, and the turn ends at its next safe point */
  steer: (id: string) => Promise<void>;
  /** "Send now" on what is typed: it goes first, and the turn ends at its next safe point */
  sendNow: (m: Omit<ComposerMessage, 'skill' | 'command'>) => void;
  /** take a queued message out to edit it */
  take: (id: string) => QueuedMessage | undefined;
  cancel: (id: string) => void;
}

/** Messages typed while a turn runs: each goes once the turn ends (and nothing else waits), one at a time. */
export function useMessageQueue(h: QueueHost): MessageQueue {
  const { busy, blocked, disabled, errored, onSend } = h;
  const [queue, setQueue] = useState<QueuedMessage[]>([]);
  // a message queued while the turn ran goes once it ends (and nothing else waits)
  const inflight = useRef(false);
  useEffect(() => {
    if (busy || errored) inflight.current = false;
    if (busy || blocked || disabled || errored || inflight.current || queue.length === 0) return;
    const [next, ...rest] = queue;
    inflight.current = true;
    setQueue(rest);
    onSend({ text: next.text, files: next.files, ...(next.skill ? { skill: next.skill } : {}), ...(next.command ? { command: next.command } : {}) });
  }, [busy, blocked, disabled, errored, queue, onSend]);

  function submit(m: ComposerMessage) {
    if (busy || blocked || queue.length > 0) setQueue((q) => [...q, { id: newId(), ...m }]);
    else {
      inflight.current = true;
      onSend(m);
    }
  }

  const steer = async (id: string) => {
    setQueue((q) => {
      const item = q.find((x) => x.id === id);
      return item ? [{ ...item, steering: true }, ...q.filter((x) => x.id !== id)] : q;
    });
    await steerTurn(h.sessionId).catch(() => false);
  };
  const sendNow = (m: Omit<ComposerMessage, 'skill' | 'command'>) => {
    setQueue((q) => [{ id: newId(), ...m, steering: true }, ...q]);
    void steerTurn(h.sessionId).catch(() => false);
  };
  const cancel = (id: string) => setQueue((q) => q.filter((x) => x.id !== id));
  const take = (id: string) => {
    const item = queue.find((q) => q.id === id);
    if (item) cancel(id);
    return item;
  };

  return { queue, submit, steer, sendNow, take, cancel };
}
