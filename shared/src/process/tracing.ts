/**
 * The OpenTelemetry SDK of a process, started by every process as it starts (lifecycle.ts, and the
 * embedded default's main), and only when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: then spans are exported in batches to that endpoint over
 * OTLP/HTTP with JSON bodies (`<endpoint>/v1/traces`), sampled as OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG say (every trace by default; `parentbased_traceidratio` with `0.2` keeps one
 * in five, whole across processes), with the other standard OTEL_* variables (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*, OTEL_EXPORTER_OTLP_HEADERS, ...). Otherwise the SDK is not
 * even loaded, and spans.ts runs work as it is.
 *
 * The only module that touches the SDK packages (eslint.config.mjs holds everything else to
 * `@opentelemetry/api`).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { setTracingOn } from '../tracing/spans';
import { Env } from './env';

export interface Tracing {
  readonly on: boolean;
  /** Exports the spans still buffered, then stops tracing. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { on: false, shutdown: async () => undefined };

export async function startTracing(serviceName: string): Promise<Tracing> {
  const env = new Env();
  const endpoint = env.raw('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? env.raw('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!endpoint || env.raw('OTEL_SDK_DISABLED') === 'true') return OFF;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  setTracingOn(true);
  return {
    on: true,
    shutdown: async () => {
      setTracingOn(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
