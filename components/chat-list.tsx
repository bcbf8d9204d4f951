'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useImperativeHandle, useLayoutEffect, useMemo, useRef, type ReactNode, type Ref, type RefObject } from 'react';
import type { PrunedMark } from './chat-derive';
import { estimateRowPx, type ChatRow } from './chat-rows';
import { RowView } from './message-view';
import type { TurnCut } from '@/lib/contract/protocol';

/** Within this many px of the bottom the list counts as at the bottom, and follows what arrives. */
const FOLLOW_WITHIN_PX = 80;
/** Rows kept mounted above and below the screen (cards render their bodies only when mounted). */
const OVERSCAN_ROWS = 4;
const EDGE_PAD_PX = 16;

export interface ChatListHandle {
  /** scroll to the newest row and keep following it */
  scrollToEnd(): void;
}

/** The list's virtualizer, opened at the newest row; `ref` gets its scrollToEnd. */
function useChatVirtualizer(rows: ChatRow[], scrollRef: RefObject<HTMLDivElement | null>, ref: Ref<ChatListHandle> | undefined) {
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  // a new key function makes the virtualizer recompute every row's place: change it only when the keys do
  const keySig = useMemo(() => rows.map((r) => r.key).join('\n'), [rows]);
  const getItemKey = useCallback((i: number) => rowsRef.current[i]?.key ?? i, [keySig]); // eslint-disable-line react-hooks/exhaustive-deps
  const estimateSize = useCallback((i: number) => estimateRowPx(rowsRef.current[i]), []);
  // the virtualizer re-renders this component on scroll by design; nothing here relies on compiler memoisation
  // eslint-disable-next-line react-hooks/incompatible-library
  const v = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    getItemKey,
    overscan: OVERSCAN_ROWS,
    paddingStart: EDGE_PAD_PX,
    paddingEnd: EDGE_PAD_PX,
    // rows added at the end keep a list that was at the bottom there; rows growing there (streaming) too
    anchorTo: 'end',
    followOnAppend: true,
    scrollEndThreshold: FOLLOW_WITHIN_PX,
  });

  useImperativeHandle(ref, () => ({ scrollToEnd: () => v.scrollToEnd() }), [v]);

  // open at the newest message
  const placed = useRef(false);
  useLayoutEffect(() => {
    if (placed.current || rows.length === 0) return;
    placed.current = true;
    v.scrollToEnd();
  }, [rows.length, v]);
  return v;
}

/**
 * The conversation as a virtualised list (rows from chat-rows.ts): only the rows on screen and a few
 * around them are in the DOM, so a session of 1,000 tool calls opens and scrolls like one of 10.
 * Rows are measured as they render and keyed stably; the list opens at the bottom, and while it is
 * at the bottom it stays there as rows arrive or grow (streaming).
 */
export function ChatList({
  rows,
  cuts,
  pruned,
  idle,
  empty,
  ref,
}: {
  rows: ChatRow[];
  cuts: ReadonlyMap<string, TurnCut>;
  pruned: ReadonlyMap<string, PrunedMark>;
  idle: boolean;
  empty?: ReactNode;
  ref?: Ref<ChatListHandle>;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const v = useChatVirtualizer(rows, scrollRef, ref);
  const items = v.getVirtualItems();
  return (
    <div ref={scrollRef} className="min-h-0 flex-1 overflow-y-auto [overflow-anchor:none]" data-chat-scroll="">
      <div className="mx-auto max-w-4xl" role="log" aria-label="Conversation" aria-live="polite" aria-relevant="additions" aria-busy={!idle}>
        {rows.length === 0 && empty}
        <div className="relative w-full" style={{ height: v.getTotalSize() }}>
          {items.map((item) => {
            const row = rows[item.index];
            return (
              <div
                key={item.key as string}
                data-index={item.index}
                data-row-kind={row.kind}
                ref={v.measureElement}
                className={`absolute left-0 top-0 w-full px-4 ${row.last ? 'pb-4' : 'pb-2'}`}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <RowView row={row} cuts={cuts} pruned={pruned} idle={idle} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
