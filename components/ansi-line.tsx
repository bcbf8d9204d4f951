'use client';

import { memo, useMemo } from 'react';
import { ansiSpans, type AnsiSpan } from '@/lib/ui/ansi';

/** parsed lines kept across remounts, so scrolling back over a page does not parse it again */
const CACHE_MAX = 4000;
const cache = new Map<string, AnsiSpan[]>();

function cachedSpans(line: string): AnsiSpan[] {
  const hit = cache.get(line);
  if (hit) return hit;
  const spans = ansiSpans(line);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(line, spans);
  return spans;
}

/**
 * One line of terminal output with its ANSI colours as styled spans. React escapes the text;
 * nothing is set as HTML. Parses once per distinct line (memoised and cached).
 */
export const AnsiLine = memo(function AnsiLine({ text }: { text: string }) {
  const spans = useMemo(() => cachedSpans(text), [text]);
  if (spans.length === 1 && !spans[0].style) return <>{spans[0].text}</>;
  return (
    <>
      {spans.map((s, i) =>
        s.style ? (
          // spans of one line never reorder, so the index is a stable key
          <span key={i} style={s.style}>
            {s.text}
          </span>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </>
  );
});
