import { sessionLedger } from '../agent/context/ledger';
import type { ClampMessage } from '../contract/protocol';

/** What a session's stored conversation says of it for the board. */
export interface SessionStats {
  tokens: { input: number; output: number };
  costUsd: number | null;
  filesChanged: number;
  /** the model its last step used */
  lastModel: string | null;
  /** its last turn ended on an error: the error's words */
  failed: string | null;
}

type LoosePart = { type: string; state?: string; output?: unknown; data?: unknown };

/** The paths a call's result says it changed (write tools name `meta.path`, apply_patch `meta.files`). */
function changedPaths(p: LoosePart): string[] {
  if (!p.type.startsWith('tool-') || p.state !== 'output-available') return [];
  const out = p.output as { status?: string; meta?: { path?: unknown; diff?: unknown; files?: unknown } } | undefined;
  if (out?.status !== 'ok' || !out.meta) return [];
  const { meta } = out;
  if (Array.isArray(meta.files)) return meta.files.map((f) => (f as { path?: unknown }).path).filter((x): x is string => typeof x === 'string');
  return typeof meta.path === 'string' && typeof meta.diff === 'string' ? [meta.path] : [];
}

/** The error notice that ended the conversation's last turn (nothing ran after it), or null. */
function lastFailure(messages: readonly ClampMessage[]): string | null {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return null;
  for (let i = last.parts.length - 1; i >= 0; i--) {
    const p = last.parts[i] as LoosePart;
    if (p.type === 'step-start') return null;
    if (p.type === 'data-notice') {
      const n = p.data as { level?: string; message?: string };
      if (n.level === 'error') return n.message ?? 'the turn failed';
    }
  }
  return null;
}

/** Tokens and cost from the ledger, the files changed, the last step's model and whether the last turn failed. */
export function sessionStats(messages: readonly ClampMessage[]): SessionStats {
  const ledger = sessionLedger(messages);
  const t = ledger.totals;
  const files = new Set<string>();
  for (const m of messages) if (m.role === 'assistant') for (const p of m.parts) for (const f of changedPaths(p as LoosePart)) files.add(f);
  return {
    tokens: { input: t.inputTokens.fresh + t.inputTokens.cacheRead + t.inputTokens.cacheWrite, output: t.outputTokens },
    costUsd: t.costUsd,
    filesChanged: files.size,
    lastModel: ledger.steps.at(-1)?.model ?? null,
    failed: lastFailure(messages),
  };
}
