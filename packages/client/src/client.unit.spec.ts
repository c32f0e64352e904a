import { createServer } from 'node:net';
import * as signing from '@tokenops/webhook-signing';
import {
  TokenOpsClient,
  isTokenOpsError,
  verifyWebhook,
  webhookTestHeaders,
  WebhookVerificationError,
} from './index';

describe('the webhook verifier', () => {
  it('is the one the service signs with, re-exported, not a copy', () => {
    expect(verifyWebhook).toBe(signing.verifyWebhook);
    expect(webhookTestHeaders).toBe(signing.webhookTestHeaders);
    expect(WebhookVerificationError).toBe(signing.WebhookVerificationError);
  });

  it('verifies what the test-header builder signs, and refuses another secret', () => {
    const body = JSON.stringify({ event: 'transfer.confirmed', amount: 9.99 });
    const secret = signing.newSigningSecret();
    const headers = webhookTestHeaders(body, secret, { event: 'transfer.confirmed' });
    expect(verifyWebhook(body, headers, secret)).toEqual({ event: 'transfer.confirmed', amount: 9.99 });
    expect(() => verifyWebhook(body, headers, signing.newSigningSecret())).toThrow(WebhookVerificationError);
  });
});

describe('answers that are not the contract’s', () => {
  it('no answer at all: network_error after the retries, status 0, with the spend’s key', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const seen: string[] = [];
    const client = new TokenOpsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      fetch: (request) => {
        seen.push(request.url);
        return fetch(request);
      },
    });
    const err = await client
      .transfer({ to: 'x', amount: 1, idempotency_key: 'mine' })
      .catch((e: unknown) => e);
    expect(isTokenOpsError(err, 'network_error')).toBe(true);
    expect(err).toMatchObject({ status: 0, idempotencyKey: 'mine' });
    expect(seen).toEqual([
      `http://127.0.0.1:${port}/api/v1/transfer`,
      `http://127.0.0.1:${port}/api/v1/transfer`,
    ]);
  });

  it('an error page without the envelope: unexpected_response with its status', async () => {
    const client = new TokenOpsClient({
      baseUrl: 'http://service.test',
      apiKey: 'k',
      retry: { maxAttempts: 1 },
      fetch: async () => new Response('<html>Bad gateway</html>', { status: 502 }),
    });
    const err = await client.limits().catch((e: unknown) => e);
    expect(isTokenOpsError(err, 'unexpected_response')).toBe(true);
    expect(err).toMatchObject({ status: 502 });
  });
});
