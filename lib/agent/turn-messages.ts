import type { ClampMessage } from '../contract/protocol';
import { isModelNote } from './data-parts';
import { describeProviderError } from './provider-errors';

/** Messages the model has something to read in: a message of data parts only (a compaction made by hand) is the page's, not the model's. */
export function withModelContent(messages: ClampMessage[]): ClampMessage[] {
  return messages.filter((m) => m.parts.some((p) => (!p.type.startsWith('data-') || isModelNote(p)) && p.type !== 'step-start'));
}

/** After Stop, calls that never finished are stored as stopped (an error the model and the page can read), not as running forever. */
export function markStopped(messages: ClampMessage[]): ClampMessage[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant') return messages;
  const parts = last.parts.map((p) => {
    const t = p as { type: string; state?: string; toolCallId?: string };
    if (!(t.type.startsWith('tool-') || t.type === 'dynamic-tool') || !t.toolCallId) return p;
    if (t.state !== 'input-available' && t.state !== 'input-streaming') return p;
    return { ...p, state: 'output-error', errorText: 'Stopped by the user before it finished.' } as unknown as typeof p;
  });
  return [...messages.slice(0, -1), { ...last, parts }];
}

/** A failed request as the one line a turn's stream ends with: what went wrong and the next step. */
export function providerErrorLine(err: unknown, label: string): string {
  const p = describeProviderError(err, label);
  return `${p.message} ${p.next}`;
}
