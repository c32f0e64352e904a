import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  newSigningSecret,
  signatureHeaders,
  verifyWebhook,
  webhookTestHeaders,
  WebhookVerificationError,
} from './signing';

const body = JSON.stringify({
  event: 'transfer.confirmed',
  event_id: 'evt_1',
  amount: '12.5',
  memo: 'café ☕',
});
const now = new Date('2026-11-21T12:00:00Z');
const nowSeconds = Math.floor(now.getTime() / 1000);
const delivery = (secrets: string[], overrides: { timestamp?: number; body?: string } = {}) =>
  signatureHeaders({
    id: 'msg_1',
    event: 'transfer.confirmed',
    timestamp: overrides.timestamp ?? nowSeconds,
    body: overrides.body ?? body,
    secrets,
  });
/** Headers keyed as Node's http server hands them over: lower case. */
const lowerCased = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
/** Only the spec's X-Service headers (a receiver that ignores Standard Webhooks). */
const serviceOnly = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith('webhook-')));
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as Error).message;
  }
  throw new Error('expected a WebhookVerificationError');
};

describe('webhook signing secrets', () => {
  it('are whsec_ and 32 random bytes in standard base64, a new one each time', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });
});

describe('the headers of a delivery', () => {
  const secret = newSigningSecret();
  const headers = delivery([secret]);

  it('carry the event, the timestamp, the id and the content type', () => {
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'X-Service-Event': 'transfer.confirmed',
      'X-Service-Timestamp': String(nowSeconds),
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(nowSeconds),
    });
  });

  it('sign the body with HMAC-SHA256 keyed with the whole secret text, in hex (the spec)', () => {
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    expect(headers['X-Service-Signature']).toBe(`sha256=${expected}`);
  });

  it('sign id.timestamp.body with the decoded secret, as the standardwebhooks library checks', () => {
    // The library checks the timestamp against the clock: sign this one now.
    const fresh = delivery([secret], { timestamp: Math.floor(Date.now() / 1000) });
    expect(new Webhook(secret).verify(body, fresh)).toEqual(JSON.parse(body));
  });

  it('are refused by the standardwebhooks library under another secret', () => {
    const fresh = delivery([secret], { timestamp: Math.floor(Date.now() / 1000) });
    expect(() => new Webhook(newSigningSecret()).verify(body, lowerCased(fresh))).toThrow(
      'No matching signature found',
    );
  });
});

describe('verifying a delivery', () => {
  const secret = newSigningSecret();

  it('round trip: returns the payload, from either header style, keys in any case', () => {
    const headers = delivery([secret]);
    expect(verifyWebhook(body, headers, secret, { now })).toEqual(JSON.parse(body));
    expect(verifyWebhook(Buffer.from(body), lowerCased(headers), secret, { now })).toEqual(JSON.parse(body));
    expect(verifyWebhook(body, serviceOnly(headers), secret, { now })).toEqual(JSON.parse(body));
    expect(verifyWebhook(body, new Headers(serviceOnly(headers)), secret, { now })).toEqual(JSON.parse(body));
  });

  it('keeps an amount past a float’s precision as its exact text', () => {
    const big = '{"amount":123456789012345678.123456789}';
    const payload = verifyWebhook(big, webhookTestHeaders(big, secret), secret) as { amount: unknown };
    expect(payload.amount).toBe('123456789012345678.123456789');
  });

  it('refuses a tampered body, under either header style', () => {
    const headers = delivery([secret]);
    const tampered = body.replace('12.5', '99.5');
    expect(refusal(() => verifyWebhook(tampered, headers, secret, { now }))).toBe(
      'no webhook-signature matches this secret',
    );
    expect(refusal(() => verifyWebhook(tampered, serviceOnly(headers), secret, { now }))).toBe(
      'no X-Service-Signature matches this secret',
    );
  });

  it('refuses another secret, under either header style', () => {
    const headers = delivery([newSigningSecret()]);
    expect(refusal(() => verifyWebhook(body, headers, secret, { now }))).toMatch(/no webhook-signature/);
    expect(refusal(() => verifyWebhook(body, serviceOnly(headers), secret, { now }))).toMatch(
      /no X-Service-Signature/,
    );
  });

  it('refuses a timestamp past the tolerance, old or in the future, signature valid or not', () => {
    const old = delivery([secret], { timestamp: nowSeconds - 301 });
    expect(refusal(() => verifyWebhook(body, old, secret, { now }))).toBe(
      'webhook-timestamp is too old (301 s, tolerance 300 s)',
    );
    expect(refusal(() => verifyWebhook(body, serviceOnly(old), secret, { now }))).toBe(
      'X-Service-Timestamp is too old (301 s, tolerance 300 s)',
    );
    const future = delivery([secret], { timestamp: nowSeconds + 301 });
    expect(refusal(() => verifyWebhook(body, future, secret, { now }))).toMatch(/in the future/);
    // At the edge, and with a tolerance of one's own.
    expect(verifyWebhook(body, delivery([secret], { timestamp: nowSeconds - 300 }), secret, { now })).toEqual(
      JSON.parse(body),
    );
    expect(
      refusal(() =>
        verifyWebhook(body, delivery([secret]), secret, {
          now: new Date(now.getTime() + 61_000),
          toleranceSeconds: 60,
        }),
      ),
    ).toMatch(/too old/);
  });

  it('refuses a delivery with a header missing, naming it', () => {
    const headers = delivery([secret]);
    const without = (name: string, from: Record<string, string> = headers) =>
      Object.fromEntries(Object.entries(from).filter(([k]) => k !== name));
    expect(refusal(() => verifyWebhook(body, without('webhook-id'), secret, { now }))).toBe(
      'the webhook-id header is missing',
    );
    expect(refusal(() => verifyWebhook(body, without('webhook-timestamp'), secret, { now }))).toBe(
      'the webhook-timestamp header is missing',
    );
    expect(
      refusal(() =>
        verifyWebhook(body, without('X-Service-Timestamp', serviceOnly(headers)), secret, { now }),
      ),
    ).toBe('the X-Service-Timestamp header is missing');
    expect(refusal(() => verifyWebhook(body, { 'content-type': 'application/json' }, secret, { now }))).toBe(
      'no signature header: expected webhook-signature or X-Service-Signature',
    );
  });

  it('refuses a timestamp that is not Unix seconds, and a body that is not JSON', () => {
    const headers = { ...delivery([secret]), 'webhook-timestamp': '2026-11-21T12:00:00Z' };
    expect(refusal(() => verifyWebhook(body, headers, secret, { now }))).toMatch(/not Unix seconds/);
    const text = 'not json';
    expect(refusal(() => verifyWebhook(text, webhookTestHeaders(text, secret), secret))).toBe(
      'the body is not valid JSON in UTF-8',
    );
  });

  it('during a rotation both secrets sign, and a receiver holding either one verifies', () => {
    const older = newSigningSecret();
    const headers = delivery([secret, older]);
    expect(headers['X-Service-Signature']!.split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const held of [secret, older]) {
      expect(verifyWebhook(body, headers, held, { now })).toEqual(JSON.parse(body));
      expect(verifyWebhook(body, serviceOnly(headers), held, { now })).toEqual(JSON.parse(body));
    }
    const fresh = delivery([secret, older], { timestamp: Math.floor(Date.now() / 1000) });
    for (const held of [secret, older])
      expect(new Webhook(held).verify(body, lowerCased(fresh))).toEqual(JSON.parse(body));
    expect(refusal(() => verifyWebhook(body, headers, newSigningSecret(), { now }))).toMatch(/no webhook/);
  });

  it('test headers are valid headers of the given id, event and time', () => {
    const headers = webhookTestHeaders(body, secret, { id: 'msg_x', event: 'payment.received' });
    expect(headers).toMatchObject({ 'webhook-id': 'msg_x', 'X-Service-Event': 'payment.received' });
    expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    expect(new Webhook(secret).verify(body, lowerCased(headers))).toEqual(JSON.parse(body));
  });
});

describe('a secret the caller chose (not whsec_<base64>)', () => {
  const secret = 'my own webhook secret, chosen by me: ünïcode too';
  const headers = delivery([secret]);

  it('keys both signatures with its UTF-8 bytes', () => {
    const key = Buffer.from(secret, 'utf8');
    const service = createHmac('sha256', key).update(body).digest('hex');
    const standard = createHmac('sha256', key).update(`msg_1.${nowSeconds}.${body}`).digest('base64');
    expect(headers['X-Service-Signature']).toBe(`sha256=${service}`);
    expect(headers['webhook-signature']).toBe(`v1,${standard}`);
  });

  it('verifies with the same secret and no other', () => {
    expect(verifyWebhook(body, lowerCased(headers), secret, { now })).toEqual(JSON.parse(body));
    expect(refusal(() => verifyWebhook(body, lowerCased(headers), `${secret}x`, { now }))).toMatch(
      /no webhook-signature/,
    );
  });

  it('a whsec_ prefix on text that is not base64 is its UTF-8 bytes too', () => {
    const odd = 'whsec_not base64 at all!';
    const h = delivery([odd]);
    const standard = createHmac('sha256', Buffer.from(odd, 'utf8'))
      .update(`msg_1.${nowSeconds}.${body}`)
      .digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${standard}`);
  });
});
