import { hookNoteLine, type HookNote } from '@/lib/contract/hooks';

const STRONG: ReadonlySet<HookNote['outcome']> = new Set(['denied', 'asked', 'allowed', 'rewrote', 'failed-result', 'failed']);

/** The card's line badge: the hook that decided the call ("blocked by hook check-secrets"), its reason in the title. */
export function HookBadge({ notes }: { notes?: HookNote[] }) {
  const n = notes?.find((x) => STRONG.has(x.outcome));
  if (!n) return null;
  const bad = n.outcome === 'denied' || n.outcome === 'failed-result' || n.outcome === 'failed';
  const line = hookNoteLine(n);
  return (
    <span data-hook-badge={n.outcome} className={`max-w-[40%] shrink-0 truncate rounded px-1 text-[11px] ${bad ? 'bg-rose-100 text-rose-800 dark:bg-rose-950 dark:text-rose-300' : 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300'}`} title={line}>
      {line.split(':')[0]}
    </span>
  );
}

/** The open card's list of what each hook did about the call, one line each. */
export function HookNotes({ notes }: { notes?: HookNote[] }) {
  if (!notes?.length) return null;
  return (
    <ul aria-label="Hooks" className="space-y-0.5 text-xs text-zinc-600 dark:text-zinc-400">
      {notes.map((n, i) => (
        <li key={`${n.event}-${n.hook}-${i}`} data-hook-note={n.outcome} className="break-words">
          <span className="text-zinc-400">{n.event}</span> {hookNoteLine(n)}
        </li>
      ))}
    </ul>
  );
}
