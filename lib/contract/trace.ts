import type { Attributes, Span, Tracer } from '@opentelemetry/api';

/**
 * Clamp's spans, when tracing is on (trace-export.ts installs a tracer when OTEL_EXPORTER_OTLP_ENDPOINT is set).
 * Without it every helper here runs its work and records nothing, and no OpenTelemetry module is loaded: this file
 * imports only types. The tracer lives on globalThis because the launcher and the page's route handlers may be
 * separate module instances of one process.
 */
export interface InstalledTracing {
  /** Clamp's own tracer */
  tracer: Tracer;
  /** the tracer the AI SDK's model spans go to */
  modelTracer: Tracer;
  /** prompts, answers and tool outputs go into spans only when the person turned that on */
  recordContent: boolean;
  /** SpanStatusCode.ERROR of the loaded API */
  errorCode: number;
}

const SLOT = Symbol.for('clamp.tracing');

function slot(): { current?: InstalledTracing } {
  const g = globalThis as unknown as Record<symbol, { current?: InstalledTracing } | undefined>;
  return (g[SLOT] ??= {});
}

export function installTracing(t: InstalledTracing | undefined): void {
  slot().current = t;
}

export function tracing(): InstalledTracing | undefined {
  return slot().current;
}

/** Attributes as Clamp gives them: an unknown value is left out. */
export type SpanAttrs = Record<string, string | number | boolean | undefined | null>;

/** Attributes without the missing ones (OpenTelemetry drops them with a warning). */
function clean(attrs: SpanAttrs): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

/**
 * Run fn inside a span named name (the active span while fn runs, so spans started inside nest under it). A throw
 * marks the span failed and is rethrown. Without tracing, fn runs with no span.
 */
export async function inSpan<T>(name: string, attrs: SpanAttrs, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  const t = tracing();
  if (!t) return fn(undefined);
  return t.tracer.startActiveSpan(name, { attributes: clean(attrs) }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: t.errorCode, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A span for something that already happened (a wait that began in one request and ended in another). */
export function pastSpan(name: string, startMs: number, endMs: number, attrs: SpanAttrs): void {
  const t = tracing();
  if (!t) return;
  t.tracer.startSpan(name, { startTime: startMs, attributes: clean(attrs) }).end(endMs);
}

/** Set attributes on a span when there is one. */
export function annotate(span: Span | undefined, attrs: SpanAttrs): void {
  span?.setAttributes(clean(attrs));
}

/** Content (a prompt, a tool's input or output) for a span: only when recording content is on, cut to maxChars. */
export function contentAttr(content: string | (() => string), maxChars = 8192): string | undefined {
  if (!tracing()?.recordContent) return undefined;
  const text = typeof content === 'string' ? content : content();
  return text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)` : text;
}

/**
 * The AI SDK's `experimental_telemetry` for a model call: its own spans (GenAI attributes, token counts), with the
 * session as the conversation; inputs and outputs only when recording content is on. Undefined without tracing.
 */
export function modelTelemetry(functionId: string, sessionId: string | undefined) {
  const t = tracing();
  if (!t) return undefined;
  return {
    isEnabled: true,
    recordInputs: t.recordContent,
    recordOutputs: t.recordContent,
    functionId,
    metadata: sessionId ? { sessionId, 'gen_ai.conversation.id': sessionId } : undefined,
    tracer: t.modelTracer,
  };
}
