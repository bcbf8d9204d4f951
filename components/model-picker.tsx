'use client';

import type { SessionSummary } from '@/lib/contract/protocol';
import type { StatusAnswer } from '@/lib/contract/rest';
import { usePatchSession } from './api';
import { useModelChoices } from './composer-api';

/**
 * The header's model: a picker of the configured providers' models for this session (stored with the
 * session; it answers from the next step). "Default" follows the settings page / environment.
 */
export function ModelPicker({ status, session, label }: { status: StatusAnswer | undefined; session: SessionSummary | null; label: string }) {
  const choices = useModelChoices(!!session && !!status?.model.configured);
  const patch = usePatchSession();
  const current = session?.model ?? '';
  const groups = choices.data?.providers ?? [];
  const known = groups.some((g) => g.models.some((m) => `${g.provider}:${m}` === current));
  const errors = groups.filter((g) => g.error).map((g) => `${g.provider}: ${g.error}`);
  // the default by its model's name, so the box shows it whole; the whole label (provider, URL) is its title
  const defaultName = status?.model.model ?? label;
  return (
    <label className="flex min-w-0 items-center gap-1 text-xs">
      <span className="sr-only">Model of this session</span>
      <select
        id="model-picker"
        value={current}
        disabled={!session || patch.isPending}
        onChange={(e) => session && patch.mutate({ id: session.id, model: e.target.value || null })}
        title={errors.length ? `Some providers did not list models:\n${errors.join('\n')}` : `This session's model: a switch answers from the next step. Default: ${label}`}
        className="max-w-[22rem] min-w-0 truncate rounded border border-zinc-300 bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-800 focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-zinc-700 dark:bg-zinc-800 dark:text-zinc-200"
      >
        <option value="" title={label}>
          Default: {defaultName}
        </option>
        {current && !known && <option value={current}>{current}</option>}
        {groups.map((g) => (
          <optgroup key={g.provider} label={g.error && g.models.length === 0 ? `${g.provider} (not reachable)` : g.provider}>
            {g.models.map((m) => (
              <option key={m} value={`${g.provider}:${m}`}>
                {m}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}
