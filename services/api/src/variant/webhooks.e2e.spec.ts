/**
 * POST /v1/webhooks: the caller chooses the signing secret (at least 32 characters), and deliveries
 * to a real HTTPS receiver on loopback are signed with it: X-Service-Signature and the Standard
 * Webhooks signature, both keyed with the secret's UTF-8 bytes (docs/variant.md).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { responseViolations, verifyWebhook } from '@tokenops/shared';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import { RECEIVER_HOST, stackWebhookTls, startWorld, type World } from '@tokenops/testing/harness';

const topologyTls = stackWebhookTls();

let world: World;
let receiver: Receiver;
beforeAll(async () => {
  const tls = topologyTls ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  world = await startWorld({
    webhooks: { allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`], ca: tls.ca, retryBaseMs: 100 },
  });
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

async function until<T>(what: () => T | undefined | false, ms = 10_000): Promise<T> {
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > giveUpAt) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a variant webhook', () => {
  it('is signed with the secret the caller chose', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 100, hourly_tx_cap: 5 });
    const secret = `my-own-secret-${randomUUID()}`;
    const url = `${receiver.url}variant-${randomUUID()}`;
    const sub = await world.client.call('POST', '/v1/webhooks', {
      token: agent.key,
      body: { url, events: ['transfer.confirmed'], secret },
    });
    expect(sub.status).toBe(200);
    expect(responseViolations('VariantWebhookResponse', sub.body)).toEqual([]);
    expect(sub.body).toEqual({ webhook_id: expect.any(String), url, events: ['transfer.confirmed'] });
    expect(JSON.stringify(sub.body)).not.toContain(secret);

    const sent = await world.client.call('POST', '/v1/transfer', {
      token: agent.key,
      headers: { 'idempotency-key': randomUUID() },
      body: { recipient: world.vendor, amount: 3, memo: 'signed' },
    });
    expect(sent.status).toBe(200);
    const path = new URL(url).pathname;
    const r = await until(() => receiver.requests.find((q) => q.url === path));
    const payload = JSON.parse(r.body) as Record<string, unknown>;
    expect(payload).toEqual(
      expect.objectContaining({
        event: 'transfer.confirmed',
        memo: 'signed',
        tx_signature: sent.body.tx_signature,
      }),
    );
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(r.body).digest('hex');
    expect(r.headers['x-service-signature']).toBe(`sha256=${expected}`);
    expect(verifyWebhook(r.body, r.headers, secret)).toEqual(payload);
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]),
    );
    expect(new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).verify(r.body, headers)).toEqual(
      payload,
    );
  });

  it('refuses a secret under 32 characters, a missing one, and a plain-http URL, in the variant envelope', async () => {
    const agent = await world.agent();
    const base = { url: `${receiver.url}x`, events: ['transfer.confirmed'] };
    for (const [body, path] of [
      [{ ...base, secret: 'x'.repeat(31) }, '/secret'],
      [base, '/secret'],
      [{ ...base, url: 'http://example.com/h', secret: 'x'.repeat(32) }, '/url'],
    ] as const) {
      const res = await world.client.call<{ error: { code: string; details: { path: string }[] } }>(
        'POST',
        '/v1/webhooks',
        { token: agent.key, body },
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.map((d) => d.path)).toContain(path);
    }
  });
});
