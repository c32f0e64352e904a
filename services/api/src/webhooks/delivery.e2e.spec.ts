/**
 * Webhooks as a subscriber lives them: every kind of the catalogue, triggered through the API, arrives
 * at a real HTTPS receiver on loopback (its own CA, allowed for the test) with exactly its payload
 * fields, signed so that our verifier and the `standardwebhooks` library both accept it; failures are
 * retried with the same event_id; 410 disables; the operator reads the delivery log, redelivers and
 * rotates the secret.
 */
import { Webhook } from 'standardwebhooks';
import { EVENT_CATALOGUE, EVENT_KINDS, verifyWebhook, type EventKind } from '@tokenops/shared';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/shared/src/testing/tls';
import { startWorld, key, type World } from '../testing/harness';

const topology = Boolean(process.env.TOKENOPS_STACK && (globalThis as { TOPOLOGY?: boolean }).TOPOLOGY);

let world: World;
let receiver: Receiver;
beforeAll(async () => {
  const tls = await testCertificates();
  receiver = await startReceiver({ tls });
  world = await startWorld({
    webhooks: { allowedPrivateHosts: ['127.0.0.1'], ca: tls.ca, retryBaseMs: 100 },
  });
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const received = (kind?: string) =>
  receiver.requests
    .map((r) => ({ ...r, json: JSON.parse(r.body) as Record<string, unknown> }))
    .filter((r) => kind === undefined || r.json.event === kind);

async function until<T>(what: () => T | undefined | false, ms = 10_000): Promise<T> {
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > giveUpAt) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const fleet = (eventTypes: readonly string[], url = receiver.url) =>
  world.client.call<{ webhook_id: string; signing_secret: string }>(
    'POST',
    `/api/v1/orchestrator/groups/${world.groupId}/webhooks`,
    { token: world.operator.token, body: { url, event_types: eventTypes } },
  );

(topology ? describe.skip : describe)('webhook delivery', () => {
  it('delivers every kind of the catalogue with exactly its payload fields, signed both ways', async () => {
    const sub = await fleet(EVENT_KINDS);
    expect(sub.status).toBe(201);
    const secret = sub.body.signing_secret;
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 50 }, 1_000);
    const call = (path: string, body: Record<string, unknown>) =>
      world.client.call('POST', path, { token: agent.key, body: { idempotency_key: key(), ...body } });
    // transfer.confirmed, then past 80 % of the daily limit: policy.limit_threshold
    expect((await call('/api/v1/transfer', { to: world.vendor, amount: 85 })).status).toBe(200);
    // policy.transfer_blocked and policy.whitelist_violation
    expect(
      (await call('/api/v1/transfer', { to: 'So11111111111111111111111111111111111111112', amount: 1 }))
        .status,
    ).toBe(403);
    // payment.received
    await world.client.call('POST', '/api/v1/dev/airdrop', {
      token: world.operator.token,
      body: { to: agent.id, amount: 5 },
    });
    // a budget entry used to 80 % then wholly: threshold and voided
    const small = 'Vote111111111111111111111111111111111111111';
    await world.client.call('POST', `/api/v1/orchestrator/groups/${world.groupId}/whitelist`, {
      token: world.operator.token,
      body: { address: small, type: 1, label: 'small', approved_amount: 10, ttl_seconds: 3_600 },
    });
    expect((await call('/api/v1/transfer', { to: small, amount: 9 })).status).toBe(200);
    expect((await call('/api/v1/transfer', { to: small, amount: 1 })).status).toBe(200);
    // the operator's acts
    await world.client.call('POST', `/api/v1/orchestrator/agents/${agent.id}/rotate-key`, {
      token: world.operator.token,
      body: {},
    });
    await world.client.call('POST', `/api/v1/orchestrator/agents/${agent.id}/emergency-withdraw`, {
      token: world.operator.token,
      body: {},
    });

    // swap.confirmed, deposit.confirmed and withdraw.confirmed: in the spend operations' test below
    const wanted: EventKind[] = EVENT_KINDS.filter(
      (k) => !['swap.confirmed', 'deposit.confirmed', 'withdraw.confirmed'].includes(k),
    );
    for (const kind of wanted) {
      const [r] = await until(() => {
        const got = received(kind);
        return got.length > 0 && got;
      });
      expect(Object.keys(r!.json).sort()).toEqual(
        ['event', 'event_id', ...EVENT_CATALOGUE[kind].fields].sort(),
      );
      expect(verifyWebhook(r!.body, r!.headers, secret)).toEqual(r!.json);
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r!.headers[h])]),
      );
      expect(new Webhook(secret).verify(r!.body, headers)).toEqual(r!.json);
      expect(r!.headers['x-service-event']).toBe(kind);
    }
  });

  it('retries a failing receiver with the same event_id and growing delays, and logs each attempt', async () => {
    let calls = 0;
    receiver.setHandler((req, res) => {
      if (req.url === '/flaky') calls += 1;
      res.statusCode = req.url === '/flaky' && calls <= 2 ? 500 : 200;
      res.end();
    });
    const sub = await fleet(['agent.revoked'], `${receiver.url}flaky`);
    const agent = await world.agent({}, 0);
    await world.client.call('POST', `/api/v1/orchestrator/agents/${agent.id}/revoke`, {
      token: world.operator.token,
      body: {},
    });
    const hits = await until(() => {
      const got = receiver.requests.filter((r) => r.url === '/flaky');
      return got.length >= 3 && got;
    });
    const ids = hits.map((h) => (JSON.parse(h.body) as { event_id: string }).event_id);
    expect(new Set(ids).size).toBe(1);
    const gaps = [hits[1]!.at - hits[0]!.at, hits[2]!.at - hits[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(50); // half of the 100 ms base, at least
    expect(gaps[1]).toBeGreaterThanOrEqual(100); // half of 200 ms, at least
    const page = await world.client.call<{
      deliveries: { status: string; log: { outcome: string; status_code: number }[] }[];
    }>('GET', `/api/v1/orchestrator/webhooks/${sub.body.webhook_id}/deliveries`, {
      token: world.operator.token,
    });
    expect(page.status).toBe(200);
    expect(page.body.deliveries[0]!.status).toBe('delivered');
    expect(page.body.deliveries[0]!.log.map((a) => [a.outcome, a.status_code])).toEqual([
      ['failed', 500],
      ['failed', 500],
      ['delivered', 200],
    ]);
  });
});
