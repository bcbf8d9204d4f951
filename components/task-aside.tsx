'use client';

import { useEffect, useRef, useSyncExternalStore, type KeyboardEvent, type ReactNode } from 'react';

/** Tailwind's `lg` breakpoint: from here on the task panel is a column beside the chat. */
const WIDE_QUERY = '(min-width: 1024px)';

const FOCUSABLE = 'button:not([disabled]), [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

function subscribeWide(onChange: () => void): () => void {
  const mq = window.matchMedia(WIDE_QUERY);
  mq.addEventListener('change', onChange);
  return () => mq.removeEventListener('change', onChange);
}

/** True while the window is at least as wide as the `lg` breakpoint (false on the server). */
export function useWideScreen(): boolean {
  return useSyncExternalStore(
    subscribeWide,
    () => window.matchMedia(WIDE_QUERY).matches,
    () => false,
  );
}

/** Another modal (the output viewer opened from the panel) is open above the drawer. */
function otherModalOpen(mine: HTMLElement | null): boolean {
  return [...document.querySelectorAll('[role="dialog"][aria-modal="true"]')].some((d) => d !== mine);
}

/**
 * The one place the task panel lives. On wide screens it is the right-hand column (hidden below
 * `lg`); with `drawer` set (narrow screens only) the same element becomes a modal drawer over the
 * page: labelled, Esc and the backdrop close it, focus moves in and goes back to the opener.
 * The children are never remounted when it switches, so the panel keeps its tails and its single
 * event feed.
 */
export function TaskAside({ drawer, onClose, children }: { drawer: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  }, [onClose]);

  // focus moves in on open and back to the opener (the header's Tasks button) on close
  useEffect(() => {
    if (!drawer) return;
    const opener = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, [drawer]);

  // Esc on the document (focus may sit on the body); the output viewer above the drawer takes its own Esc
  useEffect(() => {
    if (!drawer) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || otherModalOpen(ref.current)) return;
      e.preventDefault();
      close.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [drawer]);

  // Tab stays inside the drawer; keys from the viewer (a portal, but a React child) are its own business
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const el = ref.current;
    if (!drawer || e.key !== 'Tab' || !el || !el.contains(e.target as Node)) return;
    const items = [...el.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((x) => x.offsetParent !== null);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  // the element tree keeps its shape in both forms (conditional slots hold their places) so the panel is not remounted
  return (
    <>
      {drawer && <div aria-hidden="true" data-testid="task-drawer-backdrop" className="fixed inset-0 z-40 bg-zinc-900/40" onMouseDown={onClose} />}
      <aside
        ref={ref}
        aria-label="Background tasks"
        role={drawer ? 'dialog' : undefined}
        aria-modal={drawer ? true : undefined}
        onKeyDown={onKeyDown}
        className={
          drawer
            ? 'fixed inset-y-0 right-0 z-40 flex w-96 max-w-full flex-col border-l border-zinc-200 bg-white shadow-2xl dark:border-zinc-800 dark:bg-zinc-900'
            : 'hidden w-96 shrink-0 border-l border-zinc-200 bg-white lg:block dark:border-zinc-800 dark:bg-zinc-900'
        }
      >
        {drawer && (
          <div className="flex shrink-0 items-center justify-end border-b border-zinc-200 px-2 py-1 dark:border-zinc-800">
            <button
              ref={closeRef}
              type="button"
              onClick={onClose}
              className="rounded border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800"
            >
              Close
            </button>
          </div>
        )}
        <div className={drawer ? 'min-h-0 flex-1' : 'h-full'}>{children}</div>
      </aside>
    </>
  );
}
