'use client';

import { useEffect, useRef, useSyncExternalStore, type KeyboardEvent, type ReactNode, type RefObject } from 'react';

/** Tailwind's breakpoints: from `lg` on the task panel is a column beside the chat, from `md` on the sessions list. */
const WIDE_QUERY = { md: '(min-width: 768px)', lg: '(min-width: 1024px)' } as const;
export type Breakpoint = keyof typeof WIDE_QUERY;

const FOCUSABLE = 'button:not([disabled]), [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

const subscribers: Record<Breakpoint, (onChange: () => void) => () => void> = {
  md: (onChange) => subscribeQuery(WIDE_QUERY.md, onChange),
  lg: (onChange) => subscribeQuery(WIDE_QUERY.lg, onChange),
};

function subscribeQuery(query: string, onChange: () => void): () => void {
  const mq = window.matchMedia(query);
  mq.addEventListener('change', onChange);
  return () => mq.removeEventListener('change', onChange);
}

/** True while the window is at least as wide as the breakpoint (false on the server). */
export function useWideScreen(at: Breakpoint = 'lg'): boolean {
  return useSyncExternalStore(
    subscribers[at],
    () => window.matchMedia(WIDE_QUERY[at]).matches,
    () => false,
  );
}

/** Another modal (the output viewer opened from the panel) is open above the drawer. */
function otherModalOpen(mine: HTMLElement | null): boolean {
  return [...document.querySelectorAll('[role="dialog"][aria-modal="true"]')].some((d) => d !== mine);
}

/** How a drawer sits: its side, its label, its width, and the column it is on wide screens. */
interface DrawerPlace {
  label: string;
  side: 'left' | 'right';
  /** the drawer's width classes */
  width: string;
  /** the classes of the column it is from its breakpoint on (hidden below it) */
  column: string;
  backdropTestId: string;
}

const PLACES = {
  tasks: {
    label: 'Background tasks',
    side: 'right',
    width: 'w-96 max-w-full',
    column: 'hidden w-96 shrink-0 border-l border-zinc-200 bg-white lg:block dark:border-zinc-800 dark:bg-zinc-900',
    backdropTestId: 'task-drawer-backdrop',
  },
  sessions: { label: 'Session list', side: 'left', width: 'w-72 max-w-full', column: 'hidden shrink-0 md:block', backdropTestId: 'sessions-drawer-backdrop' },
} as const satisfies Record<string, DrawerPlace>;

/** Focus moves into the open drawer (its Close button) and back to the opener (the header's button) on close. */
function useFocusInOut(drawer: boolean, closeRef: RefObject<HTMLButtonElement | null>) {
  useEffect(() => {
    if (!drawer) return;
    const opener = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, [drawer, closeRef]);
}

/** Esc on the document closes the open drawer (focus may sit on the body); the output viewer above the drawer takes its own Esc. */
function useEscapeCloses(drawer: boolean, ref: RefObject<HTMLElement | null>, onClose: () => void) {
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  }, [onClose]);
  useEffect(() => {
    if (!drawer) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || otherModalOpen(ref.current)) return;
      e.preventDefault();
      close.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [drawer, ref]);
}

/** Tab stays inside the drawer el; keys from the viewer (a portal, but a React child) are its own business. */
function trapTab(e: KeyboardEvent<HTMLElement>, el: HTMLElement | null) {
  if (e.key !== 'Tab' || !el || !el.contains(e.target as Node)) return;
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
}

/**
 * The one place a side panel lives (the task panel, the sessions list). On wide screens it is a
 * column beside the chat (hidden below its breakpoint); with `drawer` set (narrow screens only) the
 * same element becomes a modal drawer over the page: labelled, Esc and the backdrop close it, focus
 * moves in and goes back to the opener. The children are never remounted when it switches, so the
 * task panel keeps its tails and its single event feed.
 */
export function SideDrawer({ place, drawer, onClose, children }: { place: keyof typeof PLACES; drawer: boolean; onClose: () => void; children: ReactNode }) {
  const p: DrawerPlace = PLACES[place];
  const ref = useRef<HTMLElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  useFocusInOut(drawer, closeRef);
  useEscapeCloses(drawer, ref, onClose);

  // the element tree keeps its shape in both forms (conditional slots hold their places) so the panel is not remounted
  return (
    <>
      {drawer && <div aria-hidden="true" data-testid={p.backdropTestId} className="fixed inset-0 z-40 bg-zinc-900/40" onMouseDown={onClose} />}
      <aside
        ref={ref}
        aria-label={p.label}
        role={drawer ? 'dialog' : undefined}
        aria-modal={drawer ? true : undefined}
        onKeyDown={(e) => drawer && trapTab(e, ref.current)}
        className={
          drawer
            ? `fixed inset-y-0 z-40 flex ${p.width} flex-col border-zinc-200 bg-white shadow-2xl dark:border-zinc-800 dark:bg-zinc-900 ${p.side === 'right' ? 'right-0 border-l' : 'left-0 border-r'}`
            : p.column
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
