/**
 * A span collector on loopback for tests and the benchmark: an HTTP server that takes what the OTLP/HTTP
 * exporter sends (`POST /v1/traces`, JSON bodies, as sdk.ts configures it) and keeps every span. Point
 * a process at it with `OTEL_EXPORTER_OTLP_ENDPOINT=<endpoint>`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a trace's root. */
  parentSpanId?: string;
  name: string;
  /** The resource's `service.name`: which process recorded it. */
  service: string;
  attributes: Record<string, unknown>;
  startNs: bigint;
  endNs: bigint;
  durationMs: number;
}

export interface SpanReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter adds /v1/traces). */
  endpoint: string;
  spans: CollectedSpan[];
  /** Export requests received (an exporter sends one per batch). */
  requests: number;
  /** Resolves once no span has arrived for `quietMs` (the exporters have sent what they had). */
  settled(quietMs?: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));

const attributesOf = (list: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** The spans of one OTLP JSON export request. */
export function spansOf(body: OtlpExport): CollectedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => {
        const startNs = BigInt(s.startTimeUnixNano);
        const endNs = BigInt(s.endTimeUnixNano);
        return {
          traceId: s.traceId,
          spanId: s.spanId,
          ...(s.parentSpanId && { parentSpanId: s.parentSpanId }),
          name: s.name,
          service,
          attributes: attributesOf(s.attributes),
          startNs,
          endNs,
          durationMs: Number(endNs - startNs) / 1e6,
        };
      }),
    );
  });
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSpanReceiver(): Promise<SpanReceiver> {
  let lastAt = Date.now();
  const receiver = {
    endpoint: '',
    spans: [] as CollectedSpan[],
    requests: 0,
  };
  const server = createServer((req, res) => {
    void bodyOf(req).then((text) => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        receiver.spans.push(...spansOf(JSON.parse(text) as OtlpExport));
        receiver.requests++;
        lastAt = Date.now();
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (err) {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: String(err) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(receiver, {
    async settled(quietMs = 1_000, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() - lastAt < quietMs && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
