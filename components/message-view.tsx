'use client';

import { memo, type ReactElement } from 'react';
import renderMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import type { ClampDataParts, TurnCut } from '@/lib/contract/protocol';
import { BranchViewer } from './branch-viewer';
import type { PrunedMark } from './chat-derive';
import type { ChatRow } from './chat-rows';
import { hasCodeFence, useHighlighter, type Highlight } from './code-highlight';
import { CompactionDivider } from './compaction-divider';
import { SubagentCalls } from './subagent-calls';
import { RewindDivider } from './rewind-divider';
import { ToolCard } from './tool-card';
import { ModelSwitchDivider, UserMessage } from './user-message';

const remarkPlugins = [remarkGfm];

// Nothing may load from the network: a model-written image becomes a plain link the person can choose to open.
const components: Components = {
  img: ({ src, alt }) => (
    <a href={typeof src === 'string' ? src : undefined} target="_blank" rel="noreferrer noopener">
      [image: {alt || (typeof src === 'string' ? src : '')}]
    </a>
  ),
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
};

/** The characters of markdown kept rendered (each with its element tree), newest use last. */
const RENDERED_MAX_CHARS = 1_000_000;
const rendered = new Map<string, ReactElement>();
let renderedChars = 0;

/**
 * A text's rendered markdown, parsed once: a message scrolled back into view, or a text that
 * recurs, reuses its element tree (parsing costs a few ms a message, paid on every mount when rows
 * scroll in and out). Bounded by characters, so a long message streaming in leaves no pile of its
 * earlier versions. A text with a code fence is kept only once highlighted (before the highlighter
 * has loaded it renders plain, and again when it is there).
 */
function renderedMarkdown(text: string, highlight: Highlight | null): ReactElement {
  const kept = rendered.get(text);
  if (kept) {
    rendered.delete(text);
    rendered.set(text, kept);
    return kept;
  }
  const fenced = hasCodeFence(text);
  const rehypePlugins = fenced && highlight ? [() => highlight] : [];
  const el = renderMarkdown({ children: text, remarkPlugins, rehypePlugins, components });
  if (text.length > RENDERED_MAX_CHARS / 4 || (fenced && !highlight)) return el;
  rendered.set(text, el);
  renderedChars += text.length;
  for (const [k] of rendered) {
    if (renderedChars <= RENDERED_MAX_CHARS) break;
    rendered.delete(k);
    renderedChars -= k.length;
  }
  return el;
}

/** Markdown with GitHub extensions and highlighted code (the highlighter loads with the first code fence); re-parsed only when its text changes. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const highlight = useHighlighter(hasCodeFence(text));
  return <div className="md">{renderedMarkdown(text, highlight)}</div>;
});

function Notice({ notice }: { notice: ClampDataParts['notice'] }) {
  const tone =
    notice.level === 'error'
      ? 'border-rose-200 bg-rose-50 text-rose-900 dark:border-rose-900/60 dark:bg-rose-950/40 dark:text-rose-200'
      : notice.level === 'warning'
        ? 'border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/40 dark:text-amber-200'
        : 'border-zinc-200 bg-zinc-50 text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300';
  return (
    <div role={notice.level === 'error' ? 'alert' : 'status'} className={`rounded border px-3 py-2 text-sm ${tone}`}>
      <p className="font-medium">{notice.message}</p>
      {notice.next && <p className="mt-0.5 text-xs opacity-90">Next step: {notice.next}</p>}
    </div>
  );
}

/** A kept branch opened from a rewind's divider, drawn with the conversation's own rows. */
function RowsBranchViewer({ branchId, onClose }: { branchId: string; onClose: () => void }) {
  return <BranchViewer branchId={branchId} onClose={onClose} Row={RowView} />;
}

/**
 * One row of the conversation (see chat-rows.ts): user text as typed; an assistant message's parts
 * one by one: markdown, reasoning (collapsed), a tool card, a notice. Other data parts feed the
 * header, plan panel and approval bar.
 */
export const RowView = memo(function RowView({ row, cuts, pruned, idle }: { row: ChatRow; cuts: ReadonlyMap<string, TurnCut>; pruned: ReadonlyMap<string, PrunedMark>; idle: boolean }) {
  switch (row.kind) {
    case 'user':
      return <UserMessage row={row} />;
    case 'model-switch':
      return <ModelSwitchDivider from={row.from} to={row.to} />;
    case 'text':
      return <Markdown text={row.text} />;
    case 'reasoning':
      return (
        <details className="text-xs text-zinc-500">
          <summary className="cursor-pointer select-none">Thinking</summary>
          <p className="mt-1 whitespace-pre-wrap">{row.text}</p>
        </details>
      );
    case 'tool':
      return <ToolCard part={row.part} summary={row.summary} late={row.late} turnCut={cuts.get(row.part.toolCallId)} pruned={pruned.get(row.part.toolCallId)} idle={idle} />;
    case 'notice':
      return <Notice notice={row.notice} />;
    case 'compaction':
      return <CompactionDivider compaction={row.compaction} />;
    case 'rewind':
      return <RewindDivider note={row.note} Branch={RowsBranchViewer} />;
    case 'working':
      return <p className="text-xs text-zinc-500">Working…</p>;
    case 'subagent':
      return <SubagentCalls view={row.view} idle={idle} />;
    default: {
      const never: never = row;
      return <p className="text-xs">{String((never as ChatRow).kind)}</p>;
    }
  }
});
