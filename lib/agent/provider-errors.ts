import { APICallError } from 'ai';
import { formatDuration } from '../contract/text';

export interface ProviderProblem {
  message: string;
  next: string;
}

/**
 * The texts providers answer an over-window request with: OpenAI and vLLM (`context_length_exceeded`,
 * "This model's maximum context length is …"), Anthropic ("prompt is too long"), llama.cpp
 * (`exceed_context_size_error`, "the request exceeds the available context size"), Ollama and LM Studio
 * ("… exceeds the context length", "context length exceeded", "context overflow").
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context_length_exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /exceed_context_size_error/i,
  /exceeds? (the )?(available |maximum )?context (size|length|window)/i,
  /context (length|size|window) (exceeded|overflow)/i,
  /input (length|tokens?) exceeds?/i,
];

function errorText(err: unknown): string {
  const e = err as { message?: string; responseBody?: string; data?: unknown } | undefined;
  const body = APICallError.isInstance(err) ? (err.responseBody ?? '') : (e?.responseBody ?? '');
  return `${e?.message ?? String(err)} ${body}`;
}

/** Whether a provider failure says the request was over the model's context window. */
export function isContextOverflow(err: unknown): boolean {
  const text = errorText(err);
  return OVERFLOW_PATTERNS.some((re) => re.test(text));
}

/** The window an over-window error names (OpenAI/vLLM "maximum context length is N", llama.cpp n_ctx, Anthropic "> N maximum", LM Studio "context length of only N"), or null. */
export function windowFromError(err: unknown): number | null {
  const text = errorText(err);
  const m =
    /maximum context length is (\d+)/i.exec(text) ??
    /"n_ctx"\s*:\s*(\d+)/.exec(text) ??
    /tokens? > (\d+) maximum/i.exec(text) ??
    /context length of only (\d+)/i.exec(text);
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The turn's end when a step is still over the window after compacting and retrying once. */
export function overflowAfterRetry(err: unknown, label: string, step: number): ProviderProblem {
  return {
    message: `The request at step ${step} was still over ${label}'s context window after compacting and retrying once (${errorText(err).trim().slice(0, 300)}).`,
    next: 'Press Compact (or type /compact) and send your message again; if the newest tool results alone are too large, ask for smaller reads. A model or server with a larger window (settings page) also helps.',
  };
}

/** Turn a provider failure into a message and the next step. Never throws. */
export function describeProviderError(err: unknown, label = 'the model'): ProviderProblem {
  const e = err as { statusCode?: number; message?: string; cause?: unknown; url?: string; responseBody?: string };
  const status = APICallError.isInstance(err) ? err.statusCode : e?.statusCode;
  const text = `${e?.message ?? String(err)} ${APICallError.isInstance(err) ? (err.responseBody ?? '') : ''}`;
  const causeCode = (e?.cause as { code?: string } | undefined)?.code ?? (err as { code?: string })?.code;
  if (status === 401 || status === 403 || /invalid.*api.?key|unauthori[sz]ed|authentication/i.test(text)) {
    return { message: `${label} refused the API key (${status ?? 'unauthorized'}).`, next: 'Check the key (ANTHROPIC_API_KEY, OPENAI_API_KEY or CLAMP_API_KEY, or the settings page), then send your message again.' };
  }
  if (status === 429 || /rate.?limit|too many requests/i.test(text)) {
    return { message: `${label} is rate-limiting requests (429).`, next: 'Wait a minute, then send your message again.' };
  }
  if (isContextOverflow(err) && (status === 400 || status === 413 || !status)) {
    return { message: `The conversation no longer fits ${label}'s context window.`, next: 'Press Compact (or type /compact) and send your message again; a model with a larger window (settings page) also helps.' };
  }
  if (status === 404 || /model.{0,30}not (found|exist)/i.test(text)) {
    return { message: `${label} does not exist at this provider (${status ?? 'not found'}).`, next: 'Check the model name on the settings page or in CLAMP_MODEL.' };
  }
  if (causeCode === 'ECONNREFUSED' || causeCode === 'ENOTFOUND' || causeCode === 'ECONNRESET' || /fetch failed|ECONNREFUSED|ENOTFOUND|Cannot connect|network/i.test(text)) {
    return { message: `Could not reach ${label}${e?.url ? ` at ${e.url}` : ''} (${causeCode ?? 'network error'}).`, next: 'Check that the server is running and the base URL is right (settings page or CLAMP_BASE_URL), then send your message again.' };
  }
  if (status && status >= 500) {
    return { message: `${label} failed on its side (${status}).`, next: 'Try again in a moment.' };
  }
  return { message: `${label} failed: ${(e?.message ?? String(err)).slice(0, 500)}`, next: 'Send your message again; if it keeps failing, check the settings page.' };
}

/** The page's notice while a failed request waits to be sent again: what failed and which retry comes when ("retrying (1/2) in 2 s…"). */
export function retryingText(err: unknown, label: string, retry: number, of: number, delayMs: number): string {
  return `${describeProviderError(err, label).message.replace(/\.$/, '')}: retrying (${retry}/${of}) in ${formatDuration(delayMs, { wholeSeconds: true })}…`;
}

/** The notice once a retried request got its answer, or once the last retry failed too. */
export function retriedText(label: string, retries: number, answered: boolean): string {
  const times = `${retries} ${retries === 1 ? 'retry' : 'retries'}`;
  return answered ? `${label} answered after ${times}.` : `${label} did not answer after ${times}.`;
}
