/**
 * Spans, and the W3C trace context carried from one process to the next, over `@opentelemetry/api`
 * alone: one intent is one trace, from its HTTP request to the executor and back (docs/operations.md
 * names the spans). The context travels in the messages themselves: `traceparent` / `tracestate` in
 * the metadata of each appended event (traced-store.ts) and in each job's data (a `Handoff`).
 *
 * Tracing is on only while sdk.ts has started the SDK (OTEL_EXPORTER_OTLP_ENDPOINT set). Off, every
 * helper here runs its work as it is: no span, no context, nothing allocated.
 */
import type { IncomingMessage } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';

const tracer = trace.getTracer('tokenops');
let on = false;

/** Set by sdk.ts when it starts and stops the SDK. */
export function setTracingOn(value: boolean): void {
  on = value;
}

/** Whether spans are recorded (the SDK started): for callers that would otherwise compute attributes for nothing. */
export const isTracing = (): boolean => on;

/** The W3C trace context of a message (event metadata, job data): its `traceparent` and `tracestate`. */
export interface TraceCarrier {
  traceparent?: unknown;
  tracestate?: unknown;
}

/** The trace context of work handed to another process through a queue, and when it was handed on (epoch ms). */
export interface Handoff {
  traceparent: string;
  tracestate?: string;
  at: number;
}

/** Runs `work` in a span, child of the active one (a root when none is), ended when it settles. */
export function inSpan<R>(name: string, work: () => Promise<R>, attributes?: Attributes): Promise<R> {
  if (!on) return work();
  return tracer.startActiveSpan(name, { attributes: attributes ?? {} }, (span) => endWith(span, work));
}

/**
 * Runs `work` in a span whose parent is the one `carrier` names (a message another process wrote):
 * from `startTime` (epoch ms) when given, as a wait that began before this process saw the message.
 */
export function inSpanFrom<R>(
  carrier: TraceCarrier | undefined,
  name: string,
  work: () => Promise<R>,
  options: { startTime?: number; attributes?: Attributes } = {},
): Promise<R> {
  if (!on) return work();
  const parent = contextOf(carrier);
  const span = tracer.startSpan(
    name,
    { attributes: options.attributes ?? {}, ...(options.startTime && { startTime: options.startTime }) },
    parent,
  );
  return context.with(trace.setSpan(parent, span), () => endWith(span, work));
}

/** Records a wait that is over: a span from `since` (epoch ms) to now, child of the span `carrier` names. */
export function recordWait(
  name: string,
  carrier: TraceCarrier | undefined,
  since: number,
  attributes?: Attributes,
): void {
  if (!on || typeof carrier?.traceparent !== 'string') return;
  tracer
    .startSpan(name, { startTime: since, attributes: attributes ?? {} }, contextOf(carrier))
    .end(Date.now());
}

/** The active span's context as a carrier, or undefined when no span is active (tracing off). */
export function activeCarrier(): { traceparent: string; tracestate?: string } | undefined {
  if (!on) return undefined;
  const carrier: { traceparent?: string; tracestate?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? (carrier as { traceparent: string }) : undefined;
}

/** The active span's context to put in a job, stamped with the time it is handed on. */
export function handoff(): Handoff | undefined {
  const carrier = activeCarrier();
  return carrier && { ...carrier, at: Date.now() };
}

/**
 * Runs handed-on work (a job): first records its wait in the queue (`waitName`, from the handoff to
 * now), then runs `work` in the span `name`, both children of the span that handed it on.
 */
export function resume<R>(
  from: Handoff | undefined,
  waitName: string,
  name: string,
  work: () => Promise<R>,
): Promise<R> {
  if (!on || !from) return work();
  recordWait(waitName, from, from.at);
  return inSpanFrom(from, name, work);
}

/** `fn`, bound to the active context: for work a queue (a lock's) runs later from another caller's turn. */
export function bindContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return on ? context.bind(context.active(), fn) : fn;
}

/**
 * Runs `handle` (the handling of an HTTP request) in a server span, child of the request's
 * `traceparent` header when it has one; `handle` gets the function that names the span after the
 * route that took the request (`POST /api/v1/transfer`) and ends it, once the answer is sent. The
 * request's events (its body arriving) run in the span's context too.
 */
export function serveInSpan(
  req: IncomingMessage,
  handle: (answered: (route: string, status: number) => void) => void,
): void {
  if (!on) return handle(nothing);
  const method = req.method ?? 'GET';
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } },
    parent,
  );
  const active = trace.setSpan(parent, span);
  context.bind(active, req);
  context.with(active, () =>
    handle((route, status) => {
      span.updateName(`${method} ${route}`);
      span.setAttributes({ [ATTR_HTTP_ROUTE]: route, [ATTR_HTTP_RESPONSE_STATUS_CODE]: status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }),
  );
}

const nothing = () => undefined;

function contextOf(carrier: TraceCarrier | undefined) {
  if (typeof carrier?.traceparent !== 'string') return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, {
    traceparent: carrier.traceparent,
    ...(typeof carrier.tracestate === 'string' && { tracestate: carrier.tracestate }),
  });
}

function endWith<R>(span: Span, work: () => Promise<R>): Promise<R> {
  const failed = (err: unknown) => {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    span.end();
    throw err;
  };
  try {
    return work().then((value) => {
      span.end();
      return value;
    }, failed);
  } catch (err) {
    return failed(err);
  }
}
