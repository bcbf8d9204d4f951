'use client';

import { memo, useMemo, useRef, type Ref } from 'react';
import { AnsiLine } from './ansi-line';
import { ROW_PX, useLineVirtualizer, useLinesHandle, useVisibleRange } from './use-line-virtualizer';

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

/** The gutter of line numbers: its width in characters (0 without one) and the number of lines[0], or null. */
function gutterOf(count: number, startLine: number | null, gutter: boolean): { gutterCh: number; first: number | null } {
  if (!gutter || startLine === null) return { gutterCh: 0, first: null };
  const lastNumber = startLine + Math.max(0, count - 1);
  return { gutterCh: Math.max(3, String(lastNumber).length), first: startLine };
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
  const v = useLineVirtualizer(lines.length, anchor, followTail, scrollRef);
  useLinesHandle(ref, v, lines.length, initialScroll, scrollRef);
  useVisibleRange(v, lines.length, { onRangeChange, onReachEnd, onReachStart });
  const widthCh = useMemo(() => lines.reduce((m, l) => Math.max(m, l.length), 0), [lines]);
  const { gutterCh, first } = gutterOf(lines.length, startLine, gutter);

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
            num={first !== null ? String(first + item.index) : null}
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
