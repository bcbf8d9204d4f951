'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { limitUseText, type LimitSettings, type LimitSettingsBody, type LimitSettingsView } from '@/lib/contract/limits';
import { fetchJson } from './api';
import { btnCls } from './modal';

const KEY = ['limit-settings'] as const;
const URL = '/api/settings/limits';

const inputCls =
  'mt-1 block w-full rounded border border-zinc-300 bg-white px-2 py-1 font-mono text-xs text-zinc-900 focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100';

const FIELDS: { key: keyof LimitSettings; label: string; tokens: boolean }[] = [
  { key: 'sessionTokens', label: 'Tokens per session', tokens: true },
  { key: 'sessionCostUsd', label: 'US dollars per session', tokens: false },
  { key: 'dayTokens', label: 'Tokens per day (every session)', tokens: true },
  { key: 'dayCostUsd', label: 'US dollars per day (every session)', tokens: false },
];

/** The form's text of a limit, and back: empty is no limit; "200,000" and "$1.50" are read as numbers. */
const shown = (n: number | null) => (n === null ? '' : String(n));
function parsed(text: string, tokens: boolean): number | null | string {
  const t = text.replace(/[,_\s$]/g, '');
  if (!t) return null;
  const n = Number(t);
  if (!Number.isFinite(n) || n <= 0 || (tokens && !Number.isInteger(n))) return tokens ? `"${text}" is not a whole number of tokens above 0.` : `"${text}" is not an amount of US dollars above 0.`;
  return n;
}

function LimitForm({ v }: { v: LimitSettingsView }) {
  const qc = useQueryClient();
  const [texts, setTexts] = useState<Record<keyof LimitSettings, string>>(() => ({ sessionTokens: shown(v.limits.sessionTokens), sessionCostUsd: shown(v.limits.sessionCostUsd), dayTokens: shown(v.limits.dayTokens), dayCostUsd: shown(v.limits.dayCostUsd) }));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: LimitSettingsBody) => fetchJson<LimitSettingsView>(URL, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    onSuccess: (s) => qc.setQueryData(KEY, s),
  });
  const submit = () => {
    const body: Record<string, number | null> = {};
    for (const f of FIELDS) {
      const p = parsed(texts[f.key], f.tokens);
      if (typeof p === 'string') return setProblem(`${f.label}: ${p}`);
      body[f.key] = p;
    }
    setProblem(null);
    save.mutate(body);
  };
  return (
    <form
      className="space-y-2 text-xs text-zinc-600 dark:text-zinc-400"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div className="grid grid-cols-2 gap-2">
        {FIELDS.map((f) => (
          <label key={f.key} className="block">
            {f.label}
            <input type="text" inputMode="decimal" value={texts[f.key]} onChange={(e) => setTexts({ ...texts, [f.key]: e.target.value })} placeholder="no limit" className={inputCls} />
          </label>
        ))}
      </div>
      <p>
        Today: {limitUseText({ scope: 'day', unit: 'tokens', used: v.today.tokens, limit: v.limits.dayTokens })}
        {v.today.costUsd > 0 || v.limits.dayCostUsd !== null ? ` · ${limitUseText({ scope: 'day', unit: 'usd', used: v.today.costUsd, limit: v.limits.dayCostUsd })}` : ''}. A turn that reaches a limit waits
        before its next model request and asks whether to go on with a new limit. Money counts models with catalogue prices.
      </p>
      <button type="submit" className={btnCls} disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save spending limits'}
      </button>
      {(problem ?? save.error) && <p className="text-rose-700 dark:text-rose-400">{problem ?? save.error?.message}</p>}
      {save.isSuccess && !problem && <p className="text-emerald-700 dark:text-emerald-400">Saved: the next model request is checked against these.</p>}
    </form>
  );
}

/** Spending limits: per session and per day, in tokens and US dollars. */
export function LimitSettingsSection() {
  const view = useQuery({ queryKey: KEY, queryFn: () => fetchJson<LimitSettingsView>(URL) });
  return (
    <section aria-labelledby="limits-h" className="space-y-2" data-settings-limits>
      <h3 id="limits-h" className="text-sm font-semibold">
        Spending limits
      </h3>
      {view.error && <p className="text-xs text-rose-700">{view.error.message}</p>}
      {view.data ? <LimitForm v={view.data} /> : !view.error && <p className="text-xs text-zinc-500">Loading…</p>}
    </section>
  );
}
