'use client';

import { memo, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, type Ref } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { AnsiLine } from './ansi-line';

/** every row is one line high: lines never wrap, so sizes need no measuring */
const ROW_PX = 20;
/** lines from an edge at which more is asked for, so loading runs ahead of the scroll */
const REACH_LINES = 300;
const rowSize = () => ROW_PX;

export interface VirtualLinesHandle {
  scrollToEnd(): void;
  scrollToStart(): void;
  /** bring lines[index] to the middle of the view */
  scrollToLine(index: number): void;
  focus(): void;
}

export interface VisibleRange {
  /** index in lines of the first and last visible line */
  first: number;
  last: number;
  atBottom: boolean;
}

export interface VirtualLinesProps {
  lines: string[];
  height: number | string;
  /** render ANSI colours (default true) */
  ansi?: boolean;
  /** the number of lines[0] (default 1); null when unknown (a file opened at its end): no gutter until it is known */
  startLine?: number | null;
  /** show line numbers (default true) */
  gutter?: boolean;
  onReachEnd?: () => void;
  onReachStart?: () => void;
  /** while the view is at the bottom, keep it there as lines arrive */
  followTail?: boolean;
  /** start scrolled to the top, the end, or with lines[n] in the middle */
  initialScroll?: 'start' | 'end' | number;
  /** lines[n] is the match the viewer's search is on: marked */
  highlight?: number | null;
  /** a stable index of lines[0]: when it falls by k (k lines added above), the view stays on the same lines */
  anchor?: number;
  onRangeChange?: (range: VisibleRange) => void;
  /** accessible name of the scrolling region */
  label?: string;
  ref?: Ref<VirtualLinesHandle>;
}

/**
 * A virtualised monospace list of lines: only the visible rows (and a few around them) are in
 * the DOM, so 100,000 lines scroll like 100. Focusable: arrow keys and Page Up/Down scroll it.
 */
export function VirtualLines({
  lines,
  height,
  ansi = true,
  startLine = 1,
  gutter = true,
  onReachEnd,
  onReachStart,
  followTail = false,
  initialScroll = 'start',
  highlight = null,
  anchor = 0,
  onRangeChange,
  label = 'Output',
  ref,
}: VirtualLinesProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // a new key function makes the virtualizer re-measure every row: keep it stable between scrolls
  const itemKey = useCallback((i: number) => anchor + i, [anchor]);
  // the virtualizer re-renders this component on scroll by design; nothing here relies on compiler memoisation
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({
    count: lines.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: rowSize,
    overscan: 30,
    getItemKey: itemKey,
    // keyed anchoring: lines added above (or dropped at the top) leave the same lines in view,
    // and with followTail new lines keep the view at the bottom while it is there
    anchorTo: 'end',
    followOnAppend: followTail,
    scrollEndThreshold: ROW_PX,
  });

  // every scroll goes through the virtualizer, so its idea of the position stays the element's
  useImperativeHandle(ref, () => ({
    scrollToEnd: () => v.scrollToEnd(),
    scrollToStart: () => v.scrollToOffset(0),
    scrollToLine: (index) => v.scrollToIndex(Math.max(0, Math.min(lines.length - 1, index)), { align: 'center' }),
    focus: () => scrollRef.current?.focus(),
  }));

  // start at the end once there is something to show
  const placed = useRef(false);
  useLayoutEffect(() => {
    if (placed.current || lines.length === 0) return;
    placed.current = true;
    if (initialScroll === 'end') v.scrollToEnd();
    else if (typeof initialScroll === 'number') v.scrollToIndex(Math.min(lines.length - 1, initialScroll), { align: 'center' });
  }, [lines.length, initialScroll, v]);

  const widthCh = useMemo(() => lines.reduce((m, l) => Math.max(m, l.length), 0), [lines]);
  const lastNumber = startLine === null ? 0 : startLine + Math.max(0, lines.length - 1);
  const numbered = gutter && startLine !== null;
  const gutterCh = numbered ? Math.max(3, String(lastNumber).length) : 0;

  const offset = v.scrollOffset ?? 0;
  const viewPx = v.scrollRect?.height ?? 0;
  const first = Math.min(lines.length - 1, Math.floor(offset / ROW_PX));
  const last = Math.min(lines.length - 1, Math.max(first, Math.ceil((offset + viewPx) / ROW_PX) - 1));
  const bottom = lines.length === 0 || offset + viewPx >= lines.length * ROW_PX - ROW_PX;

  useEffect(() => {
    if (viewPx === 0) return;
    onRangeChange?.({ first: Math.max(0, first), last: Math.max(0, last), atBottom: bottom });
    if (last >= lines.length - REACH_LINES) onReachEnd?.();
    if (first <= REACH_LINES) onReachStart?.();
  }, [first, last, bottom, viewPx, lines.length, onRangeChange, onReachEnd, onReachStart]);

  return (
    <div
      ref={scrollRef}
      role="region"
      aria-label={label}
      tabIndex={0}
      style={{ height }}
      className="overflow-auto bg-zinc-950 font-mono text-xs text-zinc-200 outline-none focus-visible:ring-2 focus-visible:ring-sky-500/70"
    >
      <div style={{ height: v.getTotalSize(), minWidth: `calc(${gutterCh + widthCh}ch + 2.5rem)` }} className="relative min-w-full">
        {v.getVirtualItems().map((item) => (
          <Row
            key={item.key as number}
            top={item.start}
            text={lines[item.index]}
            num={numbered ? String((startLine as number) + item.index) : null}
            gutterCh={gutterCh}
            ansi={ansi}
            current={item.index === highlight}
          />
        ))}
      </div>
    </div>
  );
}

const Row = memo(function Row(props: { top: number; text: string; num: string | null; gutterCh: number; ansi: boolean; current: boolean }) {
  // a CRLF line keeps its \r in the data (byte maths); it is not shown
  const text = props.text.endsWith('\r') ? props.text.slice(0, -1) : props.text;
  return (
    <div
      data-match={props.current ? 'current' : undefined}
      className={`absolute left-0 top-0 flex w-full leading-5 ${props.current ? 'bg-amber-400/25 outline outline-1 -outline-offset-1 outline-amber-400/70' : ''}`}
      style={{ height: ROW_PX, transform: `translateY(${props.top}px)` }}
    >
      {props.num !== null && (
        <span
          aria-hidden="true"
          className="sticky left-0 shrink-0 select-none border-r border-zinc-800 bg-zinc-950 pr-2 pl-2 text-right text-zinc-500"
          style={{ width: `calc(${props.gutterCh}ch + 1rem)` }}
        >
          {props.num}
        </span>
      )}
      <span className="whitespace-pre pl-3 pr-4">{props.ansi ? <AnsiLine text={text} /> : text}</span>
    </div>
  );
});
