'use client';

import { createContext, useContext, useSyncExternalStore } from 'react';

/** The live tail kept per running call; the whole output stays in the log file (Open log). */
export const PROGRESS_TAIL_MAX_CHARS = 1_000_000;

export interface Progress {
  text: string;
  /** characters dropped from the head to keep the tail */
  droppedChars: number;
}

const EMPTY: Progress = { text: '', droppedChars: 0 };

/**
 * Live output of running tools (transient data-tool-progress parts), kept outside React state so a
 * chunk re-renders only the card it belongs to, at most once per animation frame.
 */
export class ProgressStore {
  private data = new Map<string, Progress>();
  private listeners = new Map<string, Set<() => void>>();
  private dirty = new Set<string>();
  private frame: number | null = null;

  append(toolCallId: string, text: string): void {
    const prev = this.data.get(toolCallId) ?? EMPTY;
    let next = prev.text + text;
    let dropped = prev.droppedChars;
    if (next.length > PROGRESS_TAIL_MAX_CHARS) {
      const cut = next.indexOf('\n', next.length - PROGRESS_TAIL_MAX_CHARS);
      const at = cut === -1 ? next.length - PROGRESS_TAIL_MAX_CHARS : cut + 1;
      dropped += at;
      next = next.slice(at);
    }
    this.data.set(toolCallId, { text: next, droppedChars: dropped });
    this.dirty.add(toolCallId);
    if (this.frame === null) {
      const flush = () => {
        this.frame = null;
        const ids = [...this.dirty];
        this.dirty.clear();
        for (const id of ids) this.listeners.get(id)?.forEach((fn) => fn());
      };
      this.frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(flush) : (setTimeout(flush, 16) as unknown as number);
    }
  }

  get(toolCallId: string): Progress {
    return this.data.get(toolCallId) ?? EMPTY;
  }

  subscribe(toolCallId: string, fn: () => void): () => void {
    let set = this.listeners.get(toolCallId);
    if (!set) this.listeners.set(toolCallId, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }
}

export type ViewerSource = { kind: 'file'; path: string } | { kind: 'task'; taskId: string };

export interface ChatUi {
  progress: ProgressStore;
  /** open the paging viewer on a spilled output or a log */
  openViewer: (source: ViewerSource, title: string) => void;
  /**
   * Cards the person opened or closed, by toolCallId: the chat list unmounts rows off screen, and a
   * card scrolled back into view comes back as the person left it.
   */
  cardOpen: Map<string, boolean>;
}

const noop = () => undefined;
export const ChatUiContext = createContext<ChatUi>({ progress: new ProgressStore(), openViewer: noop, cardOpen: new Map() });

/** The chat's shared UI services (progress store, viewer). */
export function useChatUi(): ChatUi {
  return useContext(ChatUiContext);
}

/** The live output of one call; re-renders only when that call's output grows. */
export function useProgress(toolCallId: string): Progress {
  const { progress } = useChatUi();
  return useSyncExternalStore(
    (fn) => progress.subscribe(toolCallId, fn),
    () => progress.get(toolCallId),
    () => EMPTY,
  );
}
