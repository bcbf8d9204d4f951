'use client';

import { useEffect, useMemo, useState, type KeyboardEvent, type RefObject } from 'react';
import type { PageSource } from '@/lib/ui/file-page';
import { lineIndexAt, type LineWindow } from '@/lib/ui/line-window';
import type { PagedLines } from '@/lib/ui/use-paged-lines';
import { useLogSearch } from '@/lib/ui/use-log-search';
import type { VirtualLinesHandle } from './virtual-lines';

/**
 * The viewer's search box: over the whole file on the server (Enter searches, or steps to the next match
 * of the same query; Shift+Enter to the previous); each match it moves to is brought into view
 * (the list's scrollToLine) and marked (`highlight`, its index in the window's lines). The first Esc clears it.
 */
export function useViewerSearch(source: PageSource, win: LineWindow, jumpTo: PagedLines['jumpTo'], listRef: RefObject<VirtualLinesHandle | null>) {
  const found = useLogSearch(source);
  const [query, setQuery] = useState('');
  const { current } = found;
  useEffect(() => {
    if (current) jumpTo(current.offset, current.line, (i) => listRef.current?.scrollToLine(i));
  }, [current, jumpTo, listRef]);
  const highlight = useMemo(() => (current ? lineIndexAt(win, current.offset, current.line) : null), [current, win]);

  const onSearchKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape' && (query || found.answer)) {
      // the first Esc clears the search; the next one closes the viewer
      e.preventDefault();
      setQuery('');
      found.clear();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const q = query.trim() ? query : '';
      if (!q) return;
      if (found.answer?.query === q && !found.searching) found.step(e.shiftKey ? -1 : 1);
      else found.search(q);
    }
  };
  return { found, query, setQuery, onSearchKey, highlight };
}
