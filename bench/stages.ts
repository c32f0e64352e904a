/**
 * Where an intent's time goes, from its spans: a collector on loopback (the processes export to it with
 * OTEL_EXPORTER_OTLP_ENDPOINT), and a Markdown table of p50 and p99 per stage (span name). Stages
 * overlap and nest (docs/operations.md#tracing says what each measures); the request's own span is the
 * end-to-end time as the API saw it.
 */
import { startSpanReceiver, type CollectedSpan } from '@tokenops/testing/otlp-receiver';
import { quantile } from './load-runner';

/** The order stages happen in, for the table; any other span name follows, by name. */
const STAGES = [
  'POST /api/v1/transfer',
  'spend.decide',
  'event.append',
  'relay.pickup',
  'queue.wait',
  'executor.execute',
  'executor.load',
  'executor.funds',
  'executor.build',
  'submission.append',
  'chain.send',
  'chain.confirm',
  'outcome.append',
  'waiter.wake',
];

export interface SpanCollector {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  endpoint: string;
  /**
   * The environment that makes processes export to it: one trace in BENCH_TRACE_RATIO (0.2 by default)
   * sampled, whole across processes; nothing (tracing off) when it is 0.
   */
  env(): Record<string, string>;
  /** Forgets the spans collected so far (after a warm-up). */
  reset(): void;
  /** Resolves once no span has arrived for a second (the processes' exporters have sent their batches). */
  settled(): Promise<void>;
  table(): string;
  close(): Promise<void>;
}

const order = (name: string): number => {
  const i = STAGES.indexOf(name);
  return i < 0 ? STAGES.length : i;
};

/** p50 and p99 (ms) of each span name, with how many spans and traces were measured. */
export function stageTable(spans: readonly CollectedSpan[]): string {
  const byName = new Map<string, number[]>();
  for (const s of spans) byName.set(s.name, [...(byName.get(s.name) ?? []), s.durationMs]);
  const names = [...byName.keys()].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  const traces = new Set(spans.map((s) => s.traceId)).size;
  const rows = names.map((name) => {
    const sorted = byName.get(name)!.sort((a, b) => a - b);
    return `| ${name} | ${sorted.length} | ${quantile(sorted, 0.5)!.toFixed(1)} | ${quantile(sorted, 0.99)!.toFixed(1)} |`;
  });
  return [
    `Stages of the sampled intents (${traces} traces, ${spans.length} spans):`,
    '',
    '| stage (span) | count | p50 ms | p99 ms |',
    '| --- | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

export async function startSpanCollector(): Promise<SpanCollector> {
  const receiver = await startSpanReceiver();
  return {
    endpoint: receiver.endpoint,
    env: (): Record<string, string> => {
      const ratio = process.env.BENCH_TRACE_RATIO ?? '0.2';
      if (Number(ratio) === 0) return {};
      return {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: ratio,
        OTEL_BSP_SCHEDULE_DELAY: '500',
      };
    },
    reset: () => void receiver.spans.splice(0),
    settled: () => receiver.settled(1_000),
    table: () => stageTable(receiver.spans),
    close: () => receiver.close(),
  };
}
