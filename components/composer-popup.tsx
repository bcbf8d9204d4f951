'use client';

/** One choice of the composer's completion list: a path after @, or a slash command. */
export interface PopupItem {
  key: string;
  label: string;
  detail?: string;
}

/**
 * The completion list above the composer (a listbox; the textarea keeps the focus and moves the
 * active option with ↑/↓, Enter or Tab takes it, Escape closes it).
 */
export function ComposerPopup({ id, title, items, active, onPick, note }: { id: string; title: string; items: PopupItem[]; active: number; onPick: (i: number) => void; note?: string }) {
  return (
    <div className="absolute bottom-full left-0 right-0 z-20 mb-1 max-h-72 overflow-auto rounded-md border border-zinc-300 bg-white text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900">
      <p className="border-b border-zinc-200 px-3 py-1 text-xs text-zinc-500 dark:border-zinc-800">{title}</p>
      <ul id={id} role="listbox" aria-label={title}>
        {items.map((it, i) => (
          <li
            key={it.key}
            id={`${id}-${i}`}
            role="option"
            aria-selected={i === active}
            onMouseDown={(e) => {
              e.preventDefault();
              onPick(i);
            }}
            className={`flex cursor-pointer items-baseline gap-3 px-3 py-1 ${i === active ? 'bg-sky-100 dark:bg-sky-900/50' : 'hover:bg-zinc-100 dark:hover:bg-zinc-800'}`}
          >
            <span className="shrink-0 font-mono text-xs">{it.label}</span>
            {it.detail && <span className="min-w-0 truncate text-xs text-zinc-500">{it.detail}</span>}
          </li>
        ))}
        {items.length === 0 && <li className="px-3 py-1 text-xs text-zinc-500">No match.</li>}
      </ul>
      {note && <p className="border-t border-zinc-200 px-3 py-1 text-xs text-zinc-500 dark:border-zinc-800">{note}</p>}
    </div>
  );
}
