'use client';

import { isToolUIPart } from 'ai';
import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import type { ClampDataParts, ClampMessage, TurnCut } from '@/lib/contract/protocol';
import { ToolCard } from './tool-card';

const remarkPlugins = [remarkGfm];
const rehypePlugins = [[rehypeHighlight, { detect: false }]] as const;

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

/** Markdown with GitHub extensions and highlighted code; re-parsed only when its text changes. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins as never} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
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

/**
 * One message of the conversation. User text as typed; assistant parts in order: markdown,
 * reasoning (collapsed), tool cards, notices. Other data parts feed the header, plan panel and approval bar.
 */
export const MessageView = memo(function MessageView({
  message,
  cuts,
  idle,
  hideErrorNotice = false,
}: {
  message: ClampMessage;
  cuts: ReadonlyMap<string, TurnCut>;
  idle: boolean;
  /** the chat's error line shows this message's error notice instead */
  hideErrorNotice?: boolean;
}) {
  if (message.role === 'user') {
    const text = message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    return (
      <div className="flex justify-end" data-message-id={message.id} data-role="user">
        <div className="max-w-[85%] whitespace-pre-wrap rounded-lg bg-zinc-800 px-3 py-2 text-sm text-zinc-50 dark:bg-zinc-700">{text}</div>
      </div>
    );
  }
  if (message.role === 'system') return null;
  // each call's one-line summary, from its tool (the server sends it with the input and again with the result)
  const summaries = new Map<string, string>();
  for (const p of message.parts) if (p.type === 'data-tool-summary') summaries.set(p.data.toolCallId, p.data.summary);
  return (
    <div className="space-y-2" data-message-id={message.id} data-role="assistant">
      {message.parts.map((part, i) => {
        if (isToolUIPart(part)) return <ToolCard key={part.toolCallId} part={part} summary={summaries.get(part.toolCallId)} turnCut={cuts.get(part.toolCallId)} idle={idle} />;
        switch (part.type) {
          case 'text':
            return part.text.trim() ? <Markdown key={`${message.id}-t${i}`} text={part.text} /> : null;
          case 'reasoning':
            return part.text.trim() ? (
              <details key={`${message.id}-r${i}`} className="text-xs text-zinc-500">
                <summary className="cursor-pointer select-none">Thinking</summary>
                <p className="mt-1 whitespace-pre-wrap">{part.text}</p>
              </details>
            ) : null;
          case 'data-notice':
            if (hideErrorNotice && part.data.level === 'error') return null;
            return <Notice key={part.id ?? `${message.id}-n${i}`} notice={part.data} />;
          default:
            return null;
        }
      })}
    </div>
  );
});
