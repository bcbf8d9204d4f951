'use client';

import { useEffect, useSyncExternalStore } from 'react';
import type rehypeHighlight from 'rehype-highlight';

/** A rehype transformer that highlights a hast tree's code blocks in place. */
export type Highlight = ReturnType<typeof rehypeHighlight>;

/**
 * highlight.js, with rehype-highlight's ~37 common languages registered, is a sixth of the page's script and ~170 ms
 * of a load's evaluation: it loads the first time a message has a fenced code block (the only code it colours: a
 * fence with a language, as `detect: false` says), not with the page. One highlighter serves every message:
 * rehype-highlight builds its highlighter each time a processor uses it, and react-markdown makes a processor per
 * render.
 */
let highlight: Highlight | null = null;
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

/** A fenced code block (``` or ~~~ at a line's start, up to three spaces in): what rehype-highlight may colour. */
const FENCE = /^ {0,3}(```|~~~)/m;

/** Whether a markdown text has a code block the highlighter would colour. */
export function hasCodeFence(text: string): boolean {
  return FENCE.test(text);
}

/** Load the highlighter (once; again after a failed load); resolves when it is there or the load failed. */
export function loadHighlighter(): Promise<void> {
  loading ??= import('rehype-highlight').then(
    ({ default: makeHighlight }) => {
      highlight = (makeHighlight as (options: { detect: boolean }) => Highlight)({ detect: false });
      for (const l of listeners) l();
    },
    // a chunk that failed to load (the server went away): the code stays plain, and the next fence tries again
    () => {
      loading = null;
    },
  );
  return loading;
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

/** The highlighter once loaded, else null; a text with a code fence starts the load and re-renders when it is there. */
export function useHighlighter(needed: boolean): Highlight | null {
  // the server's render has none either: it never loads one
  const h = useSyncExternalStore(subscribe, () => highlight, () => highlight);
  useEffect(() => {
    if (needed && !h) void loadHighlighter();
  }, [needed, h]);
  return h;
}
