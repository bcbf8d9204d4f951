import type { Truncation } from '@/lib/contract/protocol';
import { formatBytes, formatCount, formatDuration } from '@/lib/contract/text';

export { formatBytes, formatCount, formatDuration };

// CSI and OSC escape sequences; cards show plain text (the task panel renders colours)
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/** The text without ANSI escape sequences. */
export function stripAnsi(s: string): string {
  return s.includes('\u001b') ? s.replace(ANSI, () => '') : s;
}

/** 950, 12.3k, 1.2M tokens. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** "just now", "5 min ago", "3 h ago", else the date. */
export function relativeTime(ms: number, now = Date.now()): string {
  const d = now - ms;
  if (d < 60_000) return 'just now';
  if (d < 3_600_000) return `${Math.floor(d / 60_000)} min ago`;
  if (d < 86_400_000) return `${Math.floor(d / 3_600_000)} h ago`;
  return new Date(ms).toLocaleDateString();
}

function amount(unit: Truncation['unit'], n: number): string {
  return unit === 'bytes' ? formatBytes(n) : `${formatCount(n)} ${n === 1 ? unit.replace(/s$/, '') : unit}`;
}

/** "model saw 20.0 KB of 3.4 MB · 41,212 lines omitted", in the unit the cut names. */
export function truncationText(t: Truncation): string {
  const shown = t.unit === 'bytes' ? formatBytes(t.shown) : formatCount(t.shown);
  let s = `model saw ${shown} of ${amount(t.unit, t.total)}`;
  if (t.omittedLines) s += ` · ${formatCount(t.omittedLines)} lines omitted`;
  return s;
}

/** Who made a cut, in words. */
export function cutBy(t: Truncation, toolName: string): string {
  switch (t.by) {
    case 'tool':
      return `${toolName}'s own cap`;
    case 'exit':
      return 'the output cap';
    case 'turn':
      return 'the per-step budget';
  }
}
