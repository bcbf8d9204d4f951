'use client';

import { useEffect, useId, useRef, type ReactNode } from 'react';

/** Buttons of the rewind, branch and changes views (one look for all of them). */
export const btnCls =
  'rounded border border-zinc-300 bg-white px-2.5 py-1 text-xs font-medium text-zinc-800 hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800';
export const btnPrimaryCls =
  'rounded bg-sky-600 px-2.5 py-1 text-xs font-medium text-white hover:bg-sky-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 focus-visible:ring-offset-2 disabled:opacity-50 dark:focus-visible:ring-offset-zinc-900';
export const btnDangerCls =
  'rounded bg-rose-600 px-2.5 py-1 text-xs font-medium text-white hover:bg-rose-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-rose-500 focus-visible:ring-offset-2 disabled:opacity-50 dark:focus-visible:ring-offset-zinc-900';

/** The box an action's outcome is shown in: green when it went through, red when it was refused or failed. */
export function resultBoxCls(ok: boolean): string {
  return `rounded border px-2 py-1.5 text-xs ${ok ? 'border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-200' : 'border-rose-200 bg-rose-50 text-rose-900 dark:border-rose-900 dark:bg-rose-950/40 dark:text-rose-200'}`;
}

/**
 * A modal dialog on the native <dialog> (Esc closes it, focus stays inside, the page behind is
 * inert): a title, a scrolling body and a footer that stays in view. `side` makes it a drawer on the
 * right edge, full height, as wide as the window allows.
 */
export function Modal({ title, onClose, children, footer, side = false, wide = false }: { title: ReactNode; onClose: () => void; children: ReactNode; footer?: ReactNode; side?: boolean; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  }, [onClose]);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  const place = side
    ? 'fixed inset-y-0 right-0 left-auto m-0 h-full max-h-full w-[44rem] max-w-full rounded-none border-l'
    : `m-auto ${wide ? 'w-[52rem]' : 'w-[36rem]'} max-w-[95vw] rounded-lg border`;
  return (
    <dialog
      ref={ref}
      onClose={() => close.current()}
      onMouseDown={(e) => e.target === e.currentTarget && close.current()}
      aria-labelledby={titleId}
      className={`${place} border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-900/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100`}
    >
      <div className={`flex flex-col ${side ? 'h-full' : 'max-h-[90vh]'}`}>
        <div className="flex shrink-0 items-center gap-2 border-b border-zinc-200 px-4 py-2.5 dark:border-zinc-800">
          <h2 id={titleId} className="min-w-0 flex-1 truncate text-sm font-semibold">
            {title}
          </h2>
          <button type="button" onClick={() => close.current()} className={btnCls}>
            Close
          </button>
        </div>
        <div className="min-h-0 flex-1 space-y-3 overflow-y-auto px-4 py-3 text-sm">{children}</div>
        {footer && <div className="flex shrink-0 flex-wrap items-center justify-end gap-2 border-t border-zinc-200 px-4 py-2.5 dark:border-zinc-800">{footer}</div>}
      </div>
    </dialog>
  );
}
