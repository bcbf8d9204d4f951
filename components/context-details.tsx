'use client';

import { useState } from 'react';
import type { ContextBreakdown, ContextWindowSource, LedgerStep, LedgerTotals } from '@/lib/contract/protocol';
import { formatBytes, formatTokens } from './format';
import { limitUseText, type LimitUse } from '@/lib/contract/limits';

/** The kinds the meter splits the context into, in the order they are sent. */
export const KINDS: { key: keyof ContextBreakdown; label: string; bar: string }[] = [
  { key: 'systemAndTools', label: 'system + tools', bar: 'bg-slate-500 dark:bg-slate-400' },
  { key: 'projectDocs', label: 'project docs', bar: 'bg-amber-500' },
  { key: 'conversation', label: 'conversation', bar: 'bg-sky-500' },
  { key: 'toolResults', label: 'tool results', bar: 'bg-emerald-500' },
];

/** Each kind's share of usedTokens: the breakdown is an estimate, scaled to the count the meter shows. */
export function shares(breakdown: ContextBreakdown | undefined, usedTokens: number): Record<keyof ContextBreakdown, number> {
  const sum = breakdown ? KINDS.reduce((n, k) => n + breakdown[k.key], 0) : 0;
  const out = { systemAndTools: 0, projectDocs: 0, conversation: 0, toolResults: 0 };
  if (!breakdown || sum <= 0) return out;
  for (const k of KINDS) out[k.key] = Math.round((breakdown[k.key] / sum) * usedTokens);
  return out;
}

/** Where the window's size came from, in words. */
export function sourceText(s: ContextWindowSource | undefined): string {
  if (!s) return 'not known yet';
  const kind = { settings: 'the settings override', server: "the model server's own answer", catalogue: 'the model catalogue', default: "Clamp's default (no source knew this model)" }[s.kind];
  return s.detail && s.kind !== 'settings' ? `${kind}: ${s.detail}` : kind;
}

/** $0.0123, $1.25; "—" when the catalogue has no price. */
export function formatUsd(n: number | null): string {
  if (n === null) return '—';
  if (n === 0) return '$0';
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(n < 10 ? 3 : 2)}`;
}

/** The stacked bar of the context by kind, as a share of the window. */
export function StackedBar({ breakdown, usedTokens, windowTokens, className }: { breakdown?: ContextBreakdown; usedTokens: number; windowTokens: number; className: string }) {
  const part = shares(breakdown, usedTokens);
  const pct = (n: number) => (windowTokens > 0 ? Math.min(100, (n / windowTokens) * 100) : 0);
  const total = pct(usedTokens);
  const high = total > 85 ? 'bg-rose-500' : total > 65 ? 'bg-amber-500' : 'bg-sky-500';
  return (
    <div aria-hidden="true" className={`flex overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800 ${className}`}>
      {breakdown ? KINDS.map((k) => <div key={k.key} className={`h-full ${k.bar}`} style={{ width: `${pct(part[k.key])}%` }} />) : <div className={`h-full ${high}`} style={{ width: `${total}%` }} />}
    </div>
  );
}

/** The breakdown as a legend: kind, tokens and share of what is sent. */
export function BreakdownLegend({ breakdown, usedTokens }: { breakdown: ContextBreakdown; usedTokens: number }) {
  const part = shares(breakdown, usedTokens);
  return (
    <table className="w-full text-xs" aria-label="Context by kind">
      <tbody>
        {KINDS.map((k) => (
          <tr key={k.key}>
            <td className="py-0.5">
              <span aria-hidden="true" className={`mr-1.5 inline-block h-2 w-2 rounded-sm ${k.bar}`} />
              {k.label}
            </td>
            <td className="py-0.5 text-right font-mono tabular-nums">{formatTokens(part[k.key])}</td>
            <td className="w-12 py-0.5 text-right font-mono tabular-nums text-zinc-500">{usedTokens > 0 ? `${Math.round((part[k.key] / usedTokens) * 100)}%` : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const th = 'whitespace-nowrap px-1.5 py-1 text-right font-medium first:text-left';
const td = 'whitespace-nowrap px-1.5 py-0.5 text-right font-mono tabular-nums first:text-left';

/** The steps of the newest turn: tokens in (fresh / cache read / cache write) and out, tool bytes produced vs shown, money. */
export function TurnLedger({ steps }: { steps: LedgerStep[] }) {
  const [open, setOpen] = useState(false);
  if (steps.length === 0) return <p className="text-xs text-zinc-500">No step has run in this session&apos;s newest turn yet.</p>;
  return (
    <div>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} className="text-xs font-medium text-sky-700 underline hover:text-sky-900 dark:text-sky-400">
        {open ? 'Hide' : 'Show'} this turn&apos;s ledger ({steps.length} {steps.length === 1 ? 'step' : 'steps'})
      </button>
      {open && (
        <div className="mt-1 max-h-60 overflow-auto rounded border border-zinc-200 dark:border-zinc-800">
          <table className="w-full text-[11px]" aria-label="This turn's ledger">
            <thead className="sticky top-0 bg-zinc-50 text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
              <tr>
                <th className={th}>step</th>
                <th className={th}>in fresh</th>
                <th className={th}>cache read</th>
                <th className={th}>cache write</th>
                <th className={th}>out</th>
                <th className={th}>tool bytes → shown</th>
                <th className={th}>cost</th>
              </tr>
            </thead>
            <tbody>
              {steps.map((s) => (
                <tr key={s.step} className="border-t border-zinc-100 dark:border-zinc-800">
                  <td className={td}>{s.step}</td>
                  <td className={td}>{formatTokens(s.inputTokens.fresh)}</td>
                  <td className={td}>{formatTokens(s.inputTokens.cacheRead)}</td>
                  <td className={td}>{formatTokens(s.inputTokens.cacheWrite)}</td>
                  <td className={td}>{formatTokens(s.outputTokens)}</td>
                  <td className={td}>
                    {formatBytes(s.toolBytesProduced)} → {formatBytes(s.toolBytesShown)}
                  </td>
                  <td className={td}>{formatUsd(s.costUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** The session's totals (from GET /api/sessions/[id]/ledger). */
export function SessionTotals({ totals, limits }: { totals: LedgerTotals; limits?: LimitUse[] }) {
  const rows: [string, string][] = [
    ['steps', String(totals.steps)],
    ['tokens in: fresh / cache read / cache write', `${formatTokens(totals.inputTokens.fresh)} / ${formatTokens(totals.inputTokens.cacheRead)} / ${formatTokens(totals.inputTokens.cacheWrite)}`],
    ['tokens out', formatTokens(totals.outputTokens)],
    ['tool bytes produced → shown to the model', `${formatBytes(totals.toolBytesProduced)} → ${formatBytes(totals.toolBytesShown)}`],
    ['compactions · pruned results', `${totals.compactions} · ${totals.pruned}`],
    ['cost', totals.costUsd === null ? 'no price for this model in the catalogue' : formatUsd(totals.costUsd)],
    // the session's and today's spending against the limits (subagents' included)
    ...(limits ?? []).map((u): [string, string] => [`limit · ${u.scope === 'day' ? "today's" : 'session'} ${u.unit === 'usd' ? 'cost' : 'tokens'}`, limitUseText(u)]),
  ];
  return (
    <table className="w-full text-xs" aria-label="Session totals">
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <td className="py-0.5 pr-2 text-zinc-600 dark:text-zinc-400">{k}</td>
            <td className="py-0.5 text-right font-mono tabular-nums">{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
