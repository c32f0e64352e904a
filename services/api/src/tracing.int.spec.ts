/**
 * One intent is one trace: a transfer through the embedded service, traced with its spans exported
 * over OTLP/HTTP to a receiver on loopback, shows the HTTP request's trace in every stage (the
 * decision, the appends, the relay, the queue, the executor, the chain, the outcome, the waiter),
 * each span a child of the one that caused it; the trace context rides in the events' metadata and
 * in the job. Without an endpoint nothing is exported and no event carries a trace.
 * (The embedded chain lands a transaction as it is sent: `chain.confirm` is the JSON-RPC chain's.)
 */
import { streams } from '@tokenops/shared';
import { startTracing, type Tracing } from '@tokenops/shared/process';
import { startSpanReceiver, type CollectedSpan, type SpanReceiver } from '@tokenops/testing/otlp-receiver';
import { key, startWorld, type World } from '@tokenops/testing/harness';

let receiver: SpanReceiver;
let tracing: Tracing;
let world: World;

beforeAll(async () => {
  receiver = await startSpanReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  tracing = await startTracing('tokenops-embedded');
  world = await startWorld({}, undefined);
});
afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  await tracing.shutdown();
  await world.close();
  await receiver.close();
});

async function transfer(): Promise<string> {
  const agent = await world.agent();
  const res = await world.client.call<{ intent_id: string }>('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount: 1, idempotency_key: key() },
  });
  expect(res.status).toBe(200);
  return agent.id;
}

/** The metadata of the agent's intent events. */
async function intentMetadata(agentId: string) {
  const events = await world.service.ctx.store.readStream(streams.agent(agentId));
  return events.filter((e) => e.type.startsWith('intent.')).map((e) => ({ type: e.type, ...e.metadata }));
}

test('a transfer is one trace, from its HTTP request through every stage and back', async () => {
  expect(tracing.on).toBe(true);
  const agentId = await transfer();
  await tracing.shutdown(); // exports what is buffered

  const request = receiver.spans.filter((s) => s.name === 'POST /api/v1/transfer');
  expect(request).toHaveLength(1);
  const root = request[0]!;
  expect(root.parentSpanId).toBeUndefined();
  expect(root.attributes).toMatchObject({
    'http.route': '/api/v1/transfer',
    'http.response.status_code': 200,
  });
  const trace = receiver.spans.filter((s) => s.traceId === root.traceId);
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const one = (name: string, where: (s: CollectedSpan) => boolean = () => true): CollectedSpan => {
    const found = trace.filter((s) => s.name === name && where(s));
    expect(found.map((s) => s.name)).toEqual([name]);
    return found[0]!;
  };
  const parentOf = (s: CollectedSpan) => byId.get(s.parentSpanId!);
  const appending = (type: string) => (s: CollectedSpan) =>
    String(s.attributes['event.types']).includes(type);

  // In the API: the decision and its append, under the request.
  const decide = one('spend.decide');
  expect(parentOf(decide)).toBe(root);
  const accepted = one('event.append', appending('intent.accepted'));
  expect(parentOf(accepted)).toBe(decide);
  // The relay picks the accepted intent up from the log (the event's metadata), and hands it on in the job.
  const pickup = one('relay.pickup');
  expect(parentOf(pickup)).toBe(accepted);
  expect(parentOf(one('queue.wait'))).toBe(pickup);
  const execute = one('executor.execute');
  expect(parentOf(execute)).toBe(pickup);
  // Within the run: the intent's state read, the funds check, the build and signatures, the submission
  // recorded (its append under it), the chain, the outcome.
  for (const stage of [
    'executor.load',
    'executor.funds',
    'executor.build',
    'submission.append',
    'chain.send',
  ])
    expect(parentOf(one(stage))).toBe(execute);
  expect(parentOf(one('event.append', appending('intent.submitting')))).toBe(one('submission.append'));
  const outcome = one('outcome.append');
  expect(parentOf(outcome)).toBe(execute);
  const confirmed = one('event.append', appending('intent.confirmed'));
  expect(parentOf(confirmed)).toBe(outcome);
  // The API's waiter wakes on the outcome event (its metadata again).
  expect(parentOf(one('waiter.wake'))).toBe(confirmed);
  // Every span of the trace hangs from the request.
  for (const s of trace) if (s !== root) expect(byId.has(s.parentSpanId!)).toBe(true);
  // Durations are real: each stage inside the request's time, which holds them all.
  for (const s of trace) expect(s.durationMs).toBeGreaterThanOrEqual(0);
  expect(root.durationMs).toBeGreaterThanOrEqual(execute.durationMs);

  const metadata = await intentMetadata(agentId);
  expect(metadata.map((m) => m.type)).toEqual(['intent.accepted', 'intent.submitting', 'intent.confirmed']);
  for (const m of metadata) expect(m.traceparent).toMatch(new RegExp(`^00-${root.traceId}-[0-9a-f]{16}-01$`));
});

test('with no endpoint set, nothing is traced or exported', async () => {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const off = await startTracing('tokenops-embedded');
  expect(off.on).toBe(false);
  const before = { requests: receiver.requests, spans: receiver.spans.length };
  const agentId = await transfer();
  await off.shutdown();
  await new Promise((r) => setTimeout(r, 300));
  expect({ requests: receiver.requests, spans: receiver.spans.length }).toEqual(before);
  for (const m of await intentMetadata(agentId)) expect(m).not.toHaveProperty('traceparent');
});
