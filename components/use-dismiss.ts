'use client';

import { useEffect, type RefObject } from 'react';

/** While `open`, Escape or a mouse press outside `box` calls onDismiss (a popover's way to close). */
export function useDismiss(open: boolean, onDismiss: () => void, box: RefObject<HTMLElement | null>) {
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onDismiss();
    const onDown = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && onDismiss();
    window.addEventListener('keydown', onKey);
    window.addEventListener('mousedown', onDown);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('mousedown', onDown);
    };
  }, [open, onDismiss, box]);
}
