import { installTracing, tracing } from './trace';
import { onShutdown } from './shutdown';

/**
 * Traces over OTLP/HTTP, only when the person points Clamp at a collector: OTEL_EXPORTER_OTLP_ENDPOINT (the exporter
 * adds /v1/traces) or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as given), with OTEL_EXPORTER_OTLP_HEADERS and the
 * other OTEL_EXPORTER_OTLP_* settings read by the exporter itself. Without either nothing is loaded and nothing is
 * sent. Prompts, answers and tool outputs are recorded only with CLAMP_OTEL_RECORD_CONTENT=1.
 */
export function tracesWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return !!(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) && env.OTEL_SDK_DISABLED !== 'true';
}

export function contentWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CLAMP_OTEL_RECORD_CONTENT === '1' || env.CLAMP_OTEL_RECORD_CONTENT === 'true';
}

/** Where spans go: the traces endpoint as given, else the general endpoint with the OTLP traces path. */
export function tracesUrl(env: NodeJS.ProcessEnv = process.env): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim().replace(/\/+$/, '')}/v1/traces`;
}

let flushing: (() => Promise<void>) | undefined;

/**
 * Start exporting when tracesWanted(): a tracer provider with a batch processor and the OTLP/HTTP exporter,
 * registered as the process's global one (so the AI SDK's spans and Next's nest with Clamp's). Flushed at shutdown.
 * Returns what is traced, or undefined when off; never throws (a broken setup says so on stderr and traces nothing).
 */
export async function startTracing(part: 'server' | 'run' | 'tool' | 'acp', env: NodeJS.ProcessEnv = process.env): Promise<'on' | undefined> {
  if (!tracesWanted(env)) return undefined;
  if (tracing()) return 'on';
  try {
    const [api, node, exporter, resources] = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
    const resource = resources.defaultResource().merge(
      resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'clamp', 'clamp.part': part }),
    );
    const provider = new node.NodeTracerProvider({
      resource,
      spanProcessors: [new node.BatchSpanProcessor(new exporter.OTLPTraceExporter({ url: tracesUrl(env) }))],
    });
    provider.register();
    installTracing({
      tracer: api.trace.getTracer('clamp'),
      modelTracer: api.trace.getTracer('ai'),
      recordContent: contentWanted(env),
      errorCode: api.SpanStatusCode.ERROR,
    });
    flushing = async () => {
      await provider.forceFlush().catch(() => undefined);
      await provider.shutdown().catch(() => undefined);
    };
    onShutdown(flushTracing);
    return 'on';
  } catch (err) {
    process.stderr.write(`clamp: traces are off: the OpenTelemetry exporter could not start (${err instanceof Error ? err.message : String(err)}).\n`);
    return undefined;
  }
}

/** Send what is still batched and stop exporting (a headless run calls it before it exits). Never throws. */
export async function flushTracing(): Promise<void> {
  const f = flushing;
  flushing = undefined;
  installTracing(undefined);
  await f?.();
}
