'use client';

import { useEffect, useRef, type KeyboardEvent, type RefObject } from 'react';

const FOCUSABLE = 'button:not([disabled]), [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';

/**
 * The focus of a modal drawn by hand (not a native <dialog>): it moves to the dialog's scrolling region
 * on open and back to the opener on close; Esc closes it; Tab and Shift+Tab go round inside it.
 * Returns the dialog element's keydown handler (the Tab part).
 */
export function useDialogFocus(dialogRef: RefObject<HTMLElement | null>, onClose: () => void): (e: KeyboardEvent<HTMLElement>) => void {
  // focus moves in on open and back to the opener on close
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialogRef.current?.querySelector<HTMLElement>('[role="region"]')?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, [dialogRef]);

  // Esc is heard on the document: focus can fall to the body when the list under it is replaced
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  }, [onClose]);
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      close.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  return (e) => {
    const dialog = dialogRef.current;
    if (e.key !== 'Tab' || !dialog) return;
    const items = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && (document.activeElement === first || !dialog.contains(document.activeElement))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
}
