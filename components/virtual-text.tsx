'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef } from 'react';
import { formatCount } from './format';

/** Outputs up to this many lines render as one <pre>; longer ones are virtualised. */
const PLAIN_MAX_LINES = 300;
const ROW_HEIGHT_PX = 18;
/** A single line longer than this is clipped on the card (the viewer shows it whole). */
const LINE_DISPLAY_MAX_CHARS = 4000;

export interface VirtualTextProps {
  text: string;
  /** a class for each line (diff colouring) */
  lineClass?: (line: string) => string | undefined;
  maxHeightPx?: number;
  /** keep the view at the bottom as text grows (live output), unless the person scrolled up */
  follow?: boolean;
  label: string;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function clip(line: string): string {
  if (line.length <= LINE_DISPLAY_MAX_CHARS) return line;
  return `${line.slice(0, LINE_DISPLAY_MAX_CHARS)} … (${formatCount(line.length - LINE_DISPLAY_MAX_CHARS)} more characters on this line; open the full output to see them)`;
}

/** Monospace text in a scroll box; long texts are virtualised so 10,000+ lines stay responsive. */
export const VirtualText = memo(function VirtualText({ text, lineClass, maxHeightPx = 320, follow = false, label }: VirtualTextProps) {
  const lines = useMemo(() => splitLines(text), [text]);
  if (lines.length <= PLAIN_MAX_LINES) return <PlainLines lines={lines} lineClass={lineClass} maxHeightPx={maxHeightPx} follow={follow} label={label} />;
  return <VirtualLines lines={lines} lineClass={lineClass} maxHeightPx={maxHeightPx} follow={follow} label={label} />;
});

interface LinesProps {
  lines: string[];
  lineClass?: (line: string) => string | undefined;
  maxHeightPx: number;
  follow: boolean;
  label: string;
}

const boxClass =
  'overflow-auto rounded border border-zinc-200 bg-zinc-50 font-mono text-[12px] leading-[18px] text-zinc-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-zinc-800 dark:bg-zinc-900/60 dark:text-zinc-200';

/** Follow the bottom while the person has not scrolled away from it. */
function useFollow(ref: React.RefObject<HTMLDivElement | null>, follow: boolean, count: number) {
  const pinned = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (!el || !follow) return;
    const onScroll = () => {
      pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < ROW_HEIGHT_PX * 2;
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, [ref, follow]);
  useEffect(() => {
    const el = ref.current;
    if (el && follow && pinned.current) el.scrollTop = el.scrollHeight;
  }, [ref, follow, count]);
}

function PlainLines({ lines, lineClass, maxHeightPx, follow, label }: LinesProps) {
  const ref = useRef<HTMLDivElement>(null);
  useFollow(ref, follow, lines.length);
  return (
    <div ref={ref} className={boxClass} style={{ maxHeight: maxHeightPx }} tabIndex={0} role="region" aria-label={label}>
      <pre className="w-max min-w-full px-2 py-1">
        {lines.map((line, i) => (
          <div key={i} className={lineClass?.(line)}>
            {clip(line) || ' '}
          </div>
        ))}
      </pre>
    </div>
  );
}

function VirtualLines({ lines, lineClass, maxHeightPx, follow, label }: LinesProps) {
  const ref = useRef<HTMLDivElement>(null);
  useFollow(ref, follow, lines.length);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualiser's own API; rows re-render from its state
  const v = useVirtualizer({ count: lines.length, getScrollElement: () => ref.current, estimateSize: () => ROW_HEIGHT_PX, overscan: 30 });
  // the widest line (capped) sets the scroll width, since absolutely placed rows do not
  const widthCh = useMemo(() => {
    let w = 0;
    for (const l of lines) if (l.length > w) w = l.length;
    return Math.min(w, LINE_DISPLAY_MAX_CHARS + 120);
  }, [lines]);
  return (
    <div ref={ref} className={boxClass} style={{ height: maxHeightPx }} tabIndex={0} role="region" aria-label={`${label} (${formatCount(lines.length)} lines)`}>
      <div className="relative px-2" style={{ height: v.getTotalSize() + 8, width: `calc(${widthCh}ch + 1rem)`, minWidth: '100%' }}>
        {v.getVirtualItems().map((row) => {
          const line = lines[row.index];
          return (
            <div
              key={row.key}
              className={`absolute left-2 right-0 whitespace-pre ${lineClass?.(line) ?? ''}`}
              style={{ top: 0, height: ROW_HEIGHT_PX, transform: `translateY(${row.start + 4}px)` }}
            >
              {clip(line) || ' '}
            </div>
          );
        })}
      </div>
    </div>
  );
}
