import { APICallError } from 'ai';
import type { LanguageModelV3Middleware } from '@ai-sdk/provider';

/**
 * Retries of a failed model request that the page can show. The SDK's own retries (streamText's
 * maxRetries) wait in silence: a stopped model server showed nothing for seconds before its error.
 * This middleware retries the same errors the same way — an APICallError the provider marks
 * retryable (a network error, 408, 409, 429, 5xx), waits doubling from the first, or the server's
 * retry-after when it is shorter than a minute — and says so before each wait.
 */

export interface RetryNote {
  /** 1 for the first retry */
  retry: number;
  /** how many retries there are at most */
  of: number;
  delayMs: number;
  error: unknown;
}

export interface RetryOptions {
  maxRetries: number;
  /** the first wait; each later one doubles */
  firstDelayMs: number;
  signal?: AbortSignal;
  /** before each wait */
  onRetry: (n: RetryNote) => void;
  /** a request that succeeded after `retries` retries */
  onRecovered?: (retries: number) => void;
  /** the last retry failed too (its error goes on to the loop) */
  onGaveUp?: (retries: number, error: unknown) => void;
}

/** The wait before a retry: the server's retry-after (ms or s or a date) when it gives one under a minute, else the doubling wait. */
export function retryDelayMs(error: unknown, doubling: number): number {
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  if (!headers) return doubling;
  let ms: number | undefined;
  const afterMs = parseFloat(headers['retry-after-ms'] ?? '');
  if (!Number.isNaN(afterMs)) ms = afterMs;
  const after = headers['retry-after'];
  if (ms === undefined && after) {
    const s = parseFloat(after);
    ms = Number.isNaN(s) ? Date.parse(after) - Date.now() : s * 1000;
  }
  return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < doubling) ? ms : doubling;
}

function isRetryable(error: unknown): boolean {
  return APICallError.isInstance(error) && error.isRetryable;
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const t = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** Middleware that retries a model request's start (generate or stream) as described above. Give the SDK maxRetries 0 beside it. */
export function visibleRetries(o: RetryOptions): LanguageModelV3Middleware {
  const run = async <T>(call: () => PromiseLike<T>): Promise<T> => {
    for (let retry = 0; ; retry++) {
      try {
        const r = await call();
        if (retry > 0) o.onRecovered?.(retry);
        return r;
      } catch (error) {
        if (retry >= o.maxRetries || !isRetryable(error) || o.signal?.aborted) {
          if (retry > 0) o.onGaveUp?.(retry, error);
          throw error;
        }
        const delayMs = retryDelayMs(error, o.firstDelayMs * 2 ** retry);
        o.onRetry({ retry: retry + 1, of: o.maxRetries, delayMs, error });
        await wait(delayMs, o.signal);
      }
    }
  };
  return { specificationVersion: 'v3', wrapGenerate: ({ doGenerate }) => run(doGenerate), wrapStream: ({ doStream }) => run(doStream) };
}
