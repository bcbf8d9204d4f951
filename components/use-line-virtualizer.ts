'use client';

import { useCallback, useEffect, useImperativeHandle, useLayoutEffect, useRef, type Ref, type RefObject } from 'react';
import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import type { VirtualLinesHandle, VisibleRange } from './virtual-lines';

/** every row is one line high: lines never wrap, so sizes need no measuring */
export const ROW_PX = 20;
/** lines from an edge at which more is asked for, so loading runs ahead of the scroll */
const REACH_LINES = 300;
const rowSize = () => ROW_PX;

type LinesVirtualizer = Virtualizer<HTMLDivElement, Element>;

/**
 * The virtualizer of a list of `count` one-line rows in `scrollRef`, keyed by `anchor` + index: lines
 * added above (or dropped at the top) leave the same lines in view, and with followTail new lines keep
 * the view at the bottom while it is there.
 */
export function useLineVirtualizer(count: number, anchor: number, followTail: boolean, scrollRef: RefObject<HTMLDivElement | null>): LinesVirtualizer {
  // a new key function makes the virtualizer re-measure every row: keep it stable between scrolls
  const itemKey = useCallback((i: number) => anchor + i, [anchor]);
  // the virtualizer re-renders its component on scroll by design; nothing there relies on compiler memoisation
  // eslint-disable-next-line react-hooks/incompatible-library
  return useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: rowSize,
    overscan: 30,
    getItemKey: itemKey,
    anchorTo: 'end',
    followOnAppend: followTail,
    scrollEndThreshold: ROW_PX,
  });
}

/** The list's handle (every scroll goes through the virtualizer, so its idea of the position stays the element's), and its first placing. */
export function useLinesHandle(ref: Ref<VirtualLinesHandle> | undefined, v: LinesVirtualizer, count: number, initialScroll: 'start' | 'end' | number, scrollRef: RefObject<HTMLDivElement | null>) {
  useImperativeHandle(ref, () => ({
    scrollToEnd: () => v.scrollToEnd(),
    scrollToStart: () => v.scrollToOffset(0),
    scrollToLine: (index) => v.scrollToIndex(Math.max(0, Math.min(count - 1, index)), { align: 'center' }),
    focus: () => scrollRef.current?.focus(),
  }));

  // start at the end once there is something to show
  const placed = useRef(false);
  useLayoutEffect(() => {
    if (placed.current || count === 0) return;
    placed.current = true;
    if (initialScroll === 'end') v.scrollToEnd();
    else if (typeof initialScroll === 'number') v.scrollToIndex(Math.min(count - 1, initialScroll), { align: 'center' });
  }, [count, initialScroll, v]);
}

/** The lines in view, told to onRangeChange; more is asked for (onReachEnd, onReachStart) near an edge. */
export function useVisibleRange(v: LinesVirtualizer, count: number, on: { onRangeChange?: (range: VisibleRange) => void; onReachEnd?: () => void; onReachStart?: () => void }) {
  const { onRangeChange, onReachEnd, onReachStart } = on;
  const offset = v.scrollOffset ?? 0;
  const viewPx = v.scrollRect?.height ?? 0;
  const first = Math.min(count - 1, Math.floor(offset / ROW_PX));
  const last = Math.min(count - 1, Math.max(first, Math.ceil((offset + viewPx) / ROW_PX) - 1));
  const bottom = count === 0 || offset + viewPx >= count * ROW_PX - ROW_PX;

  useEffect(() => {
    if (viewPx === 0) return;
    onRangeChange?.({ first: Math.max(0, first), last: Math.max(0, last), atBottom: bottom });
    if (last >= count - REACH_LINES) onReachEnd?.();
    if (first <= REACH_LINES) onReachStart?.();
  }, [first, last, bottom, viewPx, count, onRangeChange, onReachEnd, onReachStart]);
}
