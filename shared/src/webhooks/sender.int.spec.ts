import { Webhook } from 'standardwebhooks';
import { startReceiver, type Receiver } from '@tokenops/testing/tls';
import { WebhookSender, type WebhookSenderOptions } from './sender';
import { newSigningSecret, signatureHeaders, verifyWebhook } from './signing';

const secret = newSigningSecret();
const payload = { event: 'transfer.confirmed', event_id: 'evt_1', amount: '12.5', memo: 'café' };
const body = JSON.stringify(payload);
const headersNow = () =>
  signatureHeaders({
    id: 'msg_1',
    event: 'transfer.confirmed',
    timestamp: Math.floor(Date.now() / 1000),
    body,
    secrets: [secret],
  });

describe('a webhook delivery attempt over HTTPS', () => {
  let receiver: Receiver;
  const senders: WebhookSender[] = [];
  /** A sender trusting the test CA; the receiver's address and port allowed unless told otherwise. */
  const sender = (options: WebhookSenderOptions = {}) => {
    const s = new WebhookSender({
      ca: receiver.ca,
      allowedPrivateHosts: [`127.0.0.1:${receiver.port}`],
      ...options,
    });
    senders.push(s);
    return s;
  };
  const send = (s: WebhookSender, url = receiver.url) => s.send({ url, headers: headersNow(), body });

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.close()));
    await receiver.close();
  });

  it('a 2xx delivers: the receiver gets the exact body and headers, and the signatures verify', async () => {
    const headers = headersNow();
    const attempt = await sender().send({ url: `${receiver.url}hooks?x=1`, headers, body });
    expect(attempt).toEqual({ outcome: 'delivered', status: 200, latencyMs: expect.any(Number) });
    expect(receiver.requests).toHaveLength(1);
    const got = receiver.requests[0]!;
    expect(got).toMatchObject({ method: 'POST', url: '/hooks?x=1', body });
    for (const [name, value] of Object.entries(headers)) expect(got.headers[name.toLowerCase()]).toBe(value);
    expect(verifyWebhook(got.body, got.headers, secret)).toEqual(payload);
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(payload);
  });

  it('keeps connections alive for the next attempts to the same receiver', async () => {
    const s = sender();
    for (let i = 0; i < 10; i++) expect((await send(s)).outcome).toBe('delivered');
    expect(receiver.requests).toHaveLength(10);
    // undici frees a connection a tick after the response ends: an attempt sent at once after the
    // first may open a second one; from then on they are reused.
    expect(receiver.connections).toBeLessThanOrEqual(2);
  });

  it('reads and drops a large response body, and still delivers', async () => {
    receiver.setHandler((_req, res) => res.writeHead(200).end(Buffer.alloc(1024 * 1024, 'x')));
    const s = sender();
    expect(await send(s)).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(await send(s)).toMatchObject({ outcome: 'delivered', status: 200 });
  });

  it('a 410 says the endpoint is gone; any other status fails with it', async () => {
    receiver.setHandler((_req, res) => res.writeHead(410).end());
    expect(await send(sender())).toEqual({ outcome: 'gone', status: 410, latencyMs: expect.any(Number) });
    receiver.setHandler((_req, res) => res.writeHead(500).end('oops'));
    expect(await send(sender())).toMatchObject({ outcome: 'failed', status: 500, error: 'HTTP 500' });
  });

  it('a 302 is never followed: the redirect target is never hit', async () => {
    const target = await startReceiver();
    try {
      receiver.setHandler((_req, res) => res.writeHead(302, { location: target.url }).end());
      const attempt = await send(sender());
      expect(attempt).toMatchObject({
        outcome: 'failed',
        status: 302,
        error: 'redirect (302) not followed',
      });
      expect(receiver.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
      expect(target.connections).toBe(0);
    } finally {
      await target.close();
    }
  });

  it('a receiver that never answers is cut at the timeout', async () => {
    receiver.setHandler(() => undefined);
    const attempt = await send(sender({ timeoutMs: 300 }));
    expect(attempt).toMatchObject({ outcome: 'failed', error: 'timed out after 300 ms' });
    expect(attempt.latencyMs).toBeGreaterThanOrEqual(295);
    expect(attempt.latencyMs).toBeLessThan(1_500);
  });

  it('a receiver that answers its headers but never ends its body is cut at the same timeout', async () => {
    receiver.setHandler((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const attempt = await send(sender({ timeoutMs: 300 }));
    expect(attempt).toMatchObject({
      outcome: 'failed',
      status: 200,
      error: 'timed out after 300 ms reading the response body',
    });
    expect(attempt.latencyMs).toBeLessThan(1_500);
  });

  it('a name that never resolves is cut at the timeout too', async () => {
    const s = sender({ timeoutMs: 300, resolve: () => new Promise<string[]>(() => undefined) });
    const attempt = await send(s, `https://hooks.test:${receiver.port}/`);
    expect(attempt).toMatchObject({ outcome: 'failed', error: 'timed out after 300 ms' });
    expect(attempt.latencyMs).toBeLessThan(800);
  });

  it('an attempt cut at the timeout while connecting is not sent once connected', async () => {
    const slow = sender({
      timeoutMs: 300,
      resolve: () => new Promise<string[]>((resolve) => setTimeout(() => resolve(['127.0.0.1']), 350)),
    });
    const attempt = await send(slow, `https://localhost:${receiver.port}/`);
    expect(attempt).toMatchObject({ outcome: 'failed', error: 'timed out after 300 ms' });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(receiver.requests).toHaveLength(0);
  });

  it('the default timeout is 5 s', async () => {
    receiver.setHandler(() => undefined);
    const attempt = await send(sender());
    expect(attempt).toMatchObject({ outcome: 'failed', error: 'timed out after 5000 ms' });
    expect(attempt.latencyMs).toBeGreaterThanOrEqual(4_990);
    expect(attempt.latencyMs).toBeLessThan(6_500);
  }, 10_000);

  it('loopback is refused when not allowed (the receiver is never reached)', async () => {
    const attempt = await send(sender({ allowedPrivateHosts: [] }));
    expect(attempt).toMatchObject({
      outcome: 'failed',
      error: 'refused address 127.0.0.1: loopback IPv4 address',
    });
    expect(receiver.connections).toBe(0);
  });

  it('loopback is accepted when its name or its address is in allowedPrivateHosts', async () => {
    const byName = sender({ allowedPrivateHosts: ['hooks.test'], resolve: async () => ['127.0.0.1'] });
    const byAddress = sender({ allowedPrivateHosts: ['127.0.0.1'], resolve: async () => ['127.0.0.1'] });
    const url = `https://localhost:${receiver.port}/`;
    // The certificate is for localhost: the names below resolve to the receiver through the resolver.
    expect((await send(sender({ allowedPrivateHosts: ['localhost'] }), url)).outcome).toBe('delivered');
    expect((await send(byAddress, url)).outcome).toBe('delivered');
    // hooks.test is allowed by name, but the certificate names localhost only.
    expect(await send(byName, `https://hooks.test:${receiver.port}/`)).toMatchObject({
      outcome: 'failed',
      error: expect.stringMatching(/^TLS: .*ERR_TLS_CERT_ALTNAME_INVALID/),
    });
  });

  it('an entry with a port opens that port only: another port of the same host is refused, never connected', async () => {
    const other = await startReceiver();
    try {
      const byAddress = sender({ allowedPrivateHosts: [`127.0.0.1:${receiver.port}`] });
      const byName = sender({ allowedPrivateHosts: [`localhost:${receiver.port}`] });
      expect((await send(byAddress, receiver.url)).outcome).toBe('delivered');
      expect((await send(byName, `https://localhost:${receiver.port}/`)).outcome).toBe('delivered');
      expect(await send(byAddress, other.url)).toMatchObject({
        outcome: 'failed',
        error: `refused address 127.0.0.1: loopback IPv4 address; WEBHOOK_ALLOWED_PRIVATE_HOSTS opens it on port ${receiver.port} only, not ${other.port}`,
      });
      expect(await send(byName, `https://localhost:${other.port}/`)).toMatchObject({
        outcome: 'failed',
        error: expect.stringMatching(
          new RegExp(
            `^refused address .* \\(localhost\\): .*opens it on port ${receiver.port} only, not ${other.port}$`,
          ),
        ),
      });
      expect(other.connections).toBe(0);
    } finally {
      await other.close();
    }
  });

  describe('addresses a name resolves to, at send time', () => {
    // No private host is allowed here, but for the last case's 127.0.0.1.
    const refused: [string, string[], string[], RegExp][] = [
      ['loopback IPv4', ['127.0.0.1'], [], /refused address 127\.0\.0\.1 \(hooks\.test\): loopback/],
      ['private IPv4', ['10.0.0.1'], [], /refused address 10\.0\.0\.1 \(hooks\.test\): private/],
      ['link-local metadata', ['169.254.169.254'], [], /refused address 169\.254\.169\.254 .*linkLocal/],
      ['loopback IPv6', ['::1'], [], /refused address ::1 .*loopback IPv6/],
      [
        'IPv4-mapped loopback',
        ['::ffff:127.0.0.1'],
        [],
        /refused address ::ffff:127\.0\.0\.1 .*carries 127\.0\.0\.1/,
      ],
      ['NAT64 loopback', ['64:ff9b::7f00:1'], [], /refused address 64:ff9b::7f00:1 .*carries 127\.0\.0\.1/],
      ['unique local IPv6', ['fd00::1'], [], /refused address fd00::1 .*uniqueLocal/],
      [
        'one public, one private',
        ['93.184.215.14', '127.0.0.1'],
        [],
        /refused address 127\.0\.0\.1 \(hooks\.test\)/,
      ],
      [
        'one allowed, one private',
        ['127.0.0.1', '10.0.0.1'],
        ['127.0.0.1'],
        /refused address 10\.0\.0\.1 \(hooks\.test\)/,
      ],
    ];
    it.each(refused)('%s: refused, never connected', async (_what, addresses, allowed, error) => {
      const resolved: string[] = [];
      const s = sender({
        allowedPrivateHosts: allowed,
        resolve: async (host) => {
          resolved.push(host);
          return addresses;
        },
      });
      const attempt = await send(s, `https://hooks.test:${receiver.port}/`);
      expect(attempt).toMatchObject({ outcome: 'failed', error: expect.stringMatching(error) });
      expect(resolved).toEqual(['hooks.test']);
      expect(receiver.connections).toBe(0);
    });

    it('a name that does not resolve fails the attempt, saying so', async () => {
      const s = sender({
        allowedPrivateHosts: [],
        resolve: async () => {
          throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
        },
      });
      expect(await send(s, `https://hooks.test:${receiver.port}/`)).toMatchObject({
        outcome: 'failed',
        error: 'hooks.test does not resolve (ENOTFOUND)',
      });
      expect(receiver.connections).toBe(0);
    });
  });

  it.each([
    ['https://2130706433', '127.0.0.1'],
    ['https://0x7f000001', '127.0.0.1'],
    ['https://0177.0.0.1', '127.0.0.1'],
    ['https://[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['https://[::1]', '::1'],
  ])('the literal URL %s is refused, never connected', async (host, address) => {
    const attempt = await send(sender({ allowedPrivateHosts: [] }), `${host}:${receiver.port}/`);
    expect(attempt).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining(`refused address ${address}:`),
    });
    expect(receiver.connections).toBe(0);
  });

  it('a certificate for another name fails TLS, even when the address is allowed', async () => {
    const other = await startReceiver({ names: ['other.example'], addresses: [] });
    try {
      const s = sender({
        ca: other.ca,
        allowedPrivateHosts: [`127.0.0.1:${other.port}`],
        resolve: async () => ['127.0.0.1'],
      });
      const attempt = await send(s, `https://localhost:${other.port}/`);
      expect(attempt).toMatchObject({
        outcome: 'failed',
        error: expect.stringMatching(
          /^TLS: Hostname\/IP does not match certificate's altnames.*ERR_TLS_CERT_ALTNAME_INVALID/,
        ),
      });
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('the extra CA is needed: without it the receiver’s certificate is refused', async () => {
    const attempt = await send(sender({ ca: undefined }));
    expect(attempt).toMatchObject({
      outcome: 'failed',
      // Node 24 adds advice to the message (--use-system-ca); the code is the same.
      error: expect.stringMatching(
        /^TLS: unable to verify the first certificate\b.*\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
      ),
    });
    expect(receiver.requests).toHaveLength(0);
    expect((await send(sender())).outcome).toBe('delivered');
  });

  it('never throws: a bad URL, http, credentials and a closed port each fail with a reason', async () => {
    const s = sender();
    expect(await send(s, 'not a url')).toMatchObject({ outcome: 'failed', error: 'not a valid URL' });
    expect(await send(s, `http://127.0.0.1:${receiver.port}/`)).toMatchObject({
      outcome: 'failed',
      error: 'not an https URL',
    });
    expect(await send(s, `https://u:p@127.0.0.1:${receiver.port}/`)).toMatchObject({
      outcome: 'failed',
      error: 'the URL carries credentials',
    });
    const closed = await startReceiver();
    await closed.close();
    const toClosed = sender({ allowedPrivateHosts: [`127.0.0.1:${closed.port}`] });
    expect(await send(toClosed, closed.url)).toMatchObject({
      outcome: 'failed',
      error: 'connection refused',
    });
    expect(receiver.requests).toHaveLength(0);
  });
});
