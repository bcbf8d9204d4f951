'use client';

import type { ChatRow } from './chat-rows';

type UserRow = Extract<ChatRow, { kind: 'user' }>;

/** A user message as typed, with its images and, collapsed, each attached read exactly as the model got it. */
export function UserMessage({ row }: { row: UserRow }) {
  return (
    <div className="flex flex-col items-end gap-1" data-message-id={row.messageId} data-role="user">
      <div className="max-w-[85%] whitespace-pre-wrap rounded-lg bg-zinc-800 px-3 py-2 text-sm text-zinc-50 dark:bg-zinc-700">
        {row.skill && <span className="mr-1 rounded bg-violet-600 px-1 text-xs">skill</span>}
        {row.text}
      </div>
      {row.images && (
        <div className="flex max-w-[85%] flex-wrap justify-end gap-1">
          {row.images.map((im, i) => (
            // a data: URL the person attached: nothing to fetch
            // eslint-disable-next-line @next/next/no-img-element
            <img key={i} src={im.url} alt={im.name} title={im.name} className="h-20 max-w-[12rem] rounded border border-zinc-300 object-contain dark:border-zinc-700" />
          ))}
        </div>
      )}
      {row.attachments?.map((a, i) => (
        <details key={i} data-attached={a.path} data-status={a.status} className="w-full max-w-[85%] rounded border border-zinc-200 bg-white text-xs dark:border-zinc-800 dark:bg-zinc-900">
          <summary className="cursor-pointer select-none px-2 py-1 text-zinc-600 dark:text-zinc-400">
            <span className="font-mono">
              {a.kind === 'mention' ? '@' : ''}
              {a.path}
              {a.lines ? `#L${a.lines.start}${a.lines.end !== undefined ? `-${a.lines.end}` : ''}` : ''}
            </span>
            <span className={a.status === 'ok' ? '' : 'text-rose-700 dark:text-rose-300'}> · {a.status === 'ok' ? (a.kind === 'mention' ? 'attached read' : 'attached file') : 'could not be read'}</span>
            {a.truncation && <span className="text-amber-700 dark:text-amber-300"> · cut</span>}
          </summary>
          <pre className="max-h-80 overflow-auto whitespace-pre-wrap border-t border-zinc-200 px-2 py-1 font-mono dark:border-zinc-800">{a.text}</pre>
        </details>
      ))}
    </div>
  );
}

/** Where the session's model changed: the steps below were answered by the new one. */
export function ModelSwitchDivider({ from, to }: { from: string; to: string }) {
  return (
    <div role="separator" aria-label={`Model: ${from} → ${to}`} data-testid="model-switch" className="flex items-center gap-2 text-xs text-zinc-500">
      <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
      <span>
        Model: <span className="font-mono">{from}</span> → <span className="font-mono">{to}</span>
      </span>
      <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
