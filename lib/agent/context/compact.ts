import { generateText, type LanguageModel, type ModelMessage } from 'ai';
import { annotate, inSpan, modelTelemetry } from '../../contract/trace';
import type { CompactionInfo, PrunedItem } from '../../contract/protocol';
import { byteLength, cutHeadTail, headBytes } from '../../contract/text';
import { resultText, tokensOf } from './estimate';
import { describeCall } from './prune';
import { buildView, cutIndex, stepNumbers } from './view';

/** Bytes of one tool result quoted in the transcript the summariser reads (results are summarised, not repeated). */
const TRANSCRIPT_RESULT_MAX_BYTES = 1500;
/** Bytes per token assumed when a transcript is cut to a token budget (then measured). */
const TRANSCRIPT_BYTES_PER_TOKEN = 3;

export const SUMMARY_SYSTEM =
  'You compact the history of a coding session so the work can go on with less context. ' +
  'You are given the transcript of its older steps (older tool results are shortened or replaced by a note naming where the full text is). ' +
  'Write a summary another instance of you will continue from. Use exactly these headings, each with short bullet points; write "none" under a heading with nothing to say:\n' +
  '## Goal and constraints (what the user asked for, in their words where it matters, and every constraint they gave)\n' +
  '## Decisions (what was decided and why)\n' +
  '## Files (each file read or changed, and why; the state it was left in)\n' +
  '## Commands (commands that mattered and their outcome)\n' +
  '## Open problems (errors not yet solved, questions not yet answered)\n' +
  '## Plan (the steps still to do)\n' +
  '## Next step (the one thing to do next)\n' +
  'Keep paths, names, numbers and error messages exact. Do not call tools. Do not add anything that is not in the transcript.';

function textOfContent(m: ModelMessage): string {
  if (typeof m.content === 'string') return m.content;
  return (m.content as Array<{ type: string; text?: string }>)
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('\n');
}

/** The older steps as plain text: who said what, each call with its input, each result shortened. */
export function transcriptOf(messages: readonly ModelMessage[], steps: readonly number[]): string {
  const lines: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') lines.push(`[user] ${textOfContent(m)}`);
    else if (m.role === 'assistant') {
      const text = textOfContent(m);
      if (text.trim()) lines.push(`[assistant, step ${steps[i]}] ${text}`);
      if (typeof m.content !== 'string') {
        for (const p of m.content) if (p.type === 'tool-call') lines.push(`[call, step ${steps[i]}] ${describeCall(p.toolName, p.input)}`);
      }
    } else if (m.role === 'tool') {
      for (const p of m.content) {
        if (p.type !== 'tool-result') continue;
        const t = resultText(p.output);
        const shown = byteLength(t) > TRANSCRIPT_RESULT_MAX_BYTES ? `${headBytes(t, TRANSCRIPT_RESULT_MAX_BYTES)}… [${byteLength(t) - TRANSCRIPT_RESULT_MAX_BYTES} more bytes]` : t;
        lines.push(`[result of ${p.toolName}] ${shown}`);
      }
    }
  });
  return lines.join('\n');
}

/** Where to cut so that the last keepSteps steps stay verbatim; null when nothing before them is left to compact. */
export function chooseCut(all: readonly ModelMessage[], latestStep: number, keepSteps: number, previous: CompactionInfo | null): number | null {
  const first = Math.max(1, latestStep - keepSteps + 1);
  const steps = stepNumbers(all);
  if (first <= (previous?.firstKeptStep ?? 1)) return null;
  return cutIndex(all, steps, first) > 0 ? first : null;
}

export interface SummaryRequest {
  model: LanguageModel;
  /** the whole conversation (as the SDK holds it) */
  all: readonly ModelMessage[];
  firstKeptStep: number;
  previous: CompactionInfo | null;
  pruned: ReadonlyMap<string, PrunedItem>;
  /** most tokens the summary may take */
  summaryMaxTokens: number;
  /** most tokens the summariser's request may take */
  requestMaxTokens: number;
  focus?: string;
  signal?: AbortSignal;
  maxRetries?: number;
}

/** The request the summariser gets: the previous summary, the steps from it to the cut, and the focus. */
export function summaryPrompt(r: SummaryRequest): string {
  const earlier = buildView(r.all, r.previous, r.pruned);
  const steps = stepNumbers(r.all);
  const cut = cutIndex(r.all, steps, r.firstKeptStep);
  // the part of the current view that lies before the new cut (the previous summary included)
  const before = earlier.origin.map((o, k) => ({ o, k })).filter(({ o }) => o < cut);
  const msgs = before.map(({ k }) => earlier.messages[k]);
  let transcript = transcriptOf(
    msgs,
    before.map(({ k }) => earlier.steps[k]),
  );
  const room = Math.max(500, r.requestMaxTokens - tokensOf(SUMMARY_SYSTEM) - 200);
  for (let i = 0; i < 3 && tokensOf(transcript) > room; i++) {
    transcript = cutHeadTail(transcript, Math.floor((byteLength(transcript) * room) / tokensOf(transcript) * 0.95), 0.3).text;
  }
  if (tokensOf(transcript) > room) transcript = cutHeadTail(transcript, room * TRANSCRIPT_BYTES_PER_TOKEN * 0.8, 0.3).text;
  const focus = r.focus?.trim() ? `\n\nThe user asked the summary to keep in particular: ${r.focus.trim()}` : '';
  return `Transcript of steps 1–${r.firstKeptStep - 1}:\n\n${transcript}${focus}\n\nWrite the summary now, under the headings given.`;
}

/** The summary, or why none could be had (error, empty, over budget). */
export type SummaryOutcome = { ok: true; text: string } | { ok: false; reason: string };

/** Ask the model for the summary under its budget. Never throws. */
export function writeSummary(r: SummaryRequest): Promise<SummaryOutcome> {
  return inSpan('clamp.compact', { 'clamp.compact.first_kept_step': r.firstKeptStep, 'clamp.compact.summary_max_tokens': r.summaryMaxTokens }, async (span) => {
    const out = await summarise(r);
    annotate(span, { 'clamp.compact.outcome': out.ok ? 'summary' : 'fallback', 'clamp.compact.reason': out.ok ? undefined : out.reason });
    return out;
  });
}

async function summarise(r: SummaryRequest): Promise<SummaryOutcome> {
  try {
    const res = await generateText({
      model: r.model,
      system: SUMMARY_SYSTEM,
      prompt: summaryPrompt(r),
      maxOutputTokens: r.summaryMaxTokens,
      abortSignal: r.signal,
      maxRetries: r.maxRetries ?? 2,
      experimental_telemetry: modelTelemetry('clamp.compact', undefined),
    });
    const text = res.text.trim();
    if (!text) return { ok: false, reason: 'the model wrote an empty summary' };
    if (res.finishReason === 'length' || tokensOf(text) > r.summaryMaxTokens * 1.1) {
      return { ok: false, reason: `the summary went over its budget of ${r.summaryMaxTokens} tokens` };
    }
    return { ok: true, text };
  } catch (err) {
    return { ok: false, reason: `the summary request failed (${(err instanceof Error ? err.message : String(err)).slice(0, 200)})` };
  }
}

/**
 * When no summary could be written: a mechanical one — the user's messages and every call made
 * before the cut, within the summary's budget — so the steps dropped are still named.
 */
export function fallbackSummary(all: readonly ModelMessage[], firstKeptStep: number, previous: CompactionInfo | null, reason: string, maxTokens: number): string {
  const steps = stepNumbers(all);
  const cut = cutIndex(all, steps, firstKeptStep);
  const asked: string[] = [];
  const calls: string[] = [];
  for (let i = 0; i < cut; i++) {
    const m = all[i];
    if (m.role === 'user') asked.push(`- ${headBytes(textOfContent(m).replace(/\s+/g, ' '), 300)}`);
    if (m.role === 'assistant' && typeof m.content !== 'string') {
      for (const p of m.content) if (p.type === 'tool-call') calls.push(`${describeCall(p.toolName, p.input)} (step ${steps[i]})`);
    }
  }
  const text =
    `No summary could be written: ${reason}. Older tool results were pruned instead; the calls below can be made again.\n` +
    (previous ? `Earlier summary:\n${previous.summary}\n` : '') +
    `The user's messages so far:\n${asked.join('\n') || '- none'}\nCalls made in steps 1–${firstKeptStep - 1}: ${calls.join('; ') || 'none'}`;
  const maxBytes = maxTokens * TRANSCRIPT_BYTES_PER_TOKEN;
  return byteLength(text) > maxBytes ? cutHeadTail(text, maxBytes, 0.6).text : text;
}
