/**
 * One intent is one trace across real processes: the server topology (an API instance, an executor,
 * the projector and the chain node, each its own process) exports its spans over OTLP/HTTP to a
 * receiver on loopback. A transfer's trace holds the API's request, decision and wake, and the
 * executor's pickup, queue wait, execution, the chain's send and its confirmation over the node's
 * WebSocket, and the outcome: the W3C context crossed the processes in the events' metadata and the
 * job. (tracing.int.spec.ts checks each parent link on the embedded service.)
 */
import { startSpanReceiver, type CollectedSpan, type SpanReceiver } from '@tokenops/testing/otlp-receiver';
import { key, startWorld, type World } from '@tokenops/testing/harness';
import { Topology } from '@tokenops/testing/topology';
import { info } from '@tokenops/testing/transfers';

jest.setTimeout(120_000);

let receiver: SpanReceiver;
let topology: Topology;
let world: World;

beforeAll(async () => {
  receiver = await startSpanReceiver();
  topology = await new Topology({
    apis: 1,
    executors: 1,
    projectors: 1,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
  }).start();
  world = await startWorld({}, info(topology));
});
afterAll(async () => {
  await world?.close();
  await topology?.destroy();
  await receiver?.close();
});

test('a transfer on the server topology is one trace, from the API to the chain and back', async () => {
  const agent = await world.agent();
  const res = await world.client.call('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount: 1, idempotency_key: key() },
  });
  expect(res.status).toBe(200);

  const transfer = (s: CollectedSpan) => s.name === 'POST /api/v1/transfer';
  let trace: CollectedSpan[] = [];
  const deadline = Date.now() + 20_000;
  // The processes export in batches: wait until the whole trace is in.
  while (Date.now() < deadline) {
    const root = receiver.spans.find(transfer);
    trace = root ? receiver.spans.filter((s) => s.traceId === root.traceId) : [];
    if (trace.some((s) => s.name === 'waiter.wake') && trace.some((s) => s.name === 'outcome.append')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const where = Object.fromEntries(
    ['POST /api/v1/transfer', 'spend.decide', 'waiter.wake', 'relay.pickup', 'queue.wait']
      .concat(['executor.execute', 'executor.load', 'executor.funds', 'executor.build', 'submission.append'])
      .concat(['chain.send', 'chain.confirm', 'outcome.append'])
      .map((name) => [name, trace.filter((s) => s.name === name).map((s) => s.service)]),
  );
  expect(where).toEqual({
    'POST /api/v1/transfer': ['tokenops-api'],
    'spend.decide': ['tokenops-api'],
    'waiter.wake': ['tokenops-api'],
    'relay.pickup': ['tokenops-executor'],
    'queue.wait': ['tokenops-executor'],
    'executor.execute': ['tokenops-executor'],
    'executor.load': ['tokenops-executor'],
    'executor.funds': ['tokenops-executor'],
    'executor.build': ['tokenops-executor'],
    'submission.append': ['tokenops-executor'],
    'chain.send': ['tokenops-executor'],
    'chain.confirm': ['tokenops-executor'],
    'outcome.append': ['tokenops-executor'],
  });
  // Every span hangs from another of the trace, but the request's.
  const ids = new Set(trace.map((s) => s.spanId));
  for (const s of trace.filter((s) => !transfer(s))) expect(ids.has(s.parentSpanId!)).toBe(true);
});
