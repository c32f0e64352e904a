/**
 * The HTTP edge as a browser or a scanner sees it: the usual security headers on every answer, and
 * the Prometheus metrics kept off the API's port unless a token is configured (or on a port of their
 * own).
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import winston from 'winston';
import { generateSigner } from '@tokenops/shared';
import { createLogger } from '@tokenops/shared/process';
import { startEmbedded } from '../embedded';
import { startWorld, type World } from '@tokenops/testing/harness';
import { databaseTemplate } from '@tokenops/testing/database-template';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.close());

describe('security headers (helmet)', () => {
  it.each([
    ['an answer', 'GET', '/api/v1/openapi.json'],
    ['an error', 'GET', '/api/v1/limits'],
    ['an unknown route', 'POST', '/nope'],
    ['health', 'GET', '/healthz'],
  ])('are on %s', async (_what, method, path) => {
    const r = await world.client.call(method, path);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    expect(r.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(r.headers.get('x-powered-by')).toBeNull();
  });
});

describe('metrics', () => {
  it('are not on the API port by default', async () => {
    const r = await world.client.call('GET', '/metrics');
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 404, error: 'not_found' });
  });

  it('are on the API port to METRICS_TOKEN only, and on METRICS_PORT', async () => {
    const metricsToken = randomBytes(16).toString('hex');
    const service = await startEmbedded({
      port: 0,
      databaseTemplate: await databaseTemplate(),
      keyEncryptionKey: randomBytes(32),
      jwtSecret: randomBytes(32),
      logger: createLogger('silent'),
      metricsToken,
      metricsListener: { port: 0, host: '127.0.0.1' },
    });
    try {
      const scrape = (url: string, token?: string) =>
        fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      // RFC 6750 §3.1: no credential, the bare challenge; a wrong token, invalid_token.
      const refused = async (token?: string) => {
        const r = await scrape(`${service.url}/metrics`, token);
        return { status: r.status, challenge: r.headers.get('www-authenticate') };
      };
      expect(await refused()).toEqual({ status: 401, challenge: 'Bearer' });
      expect(await refused(`${metricsToken}x`)).toEqual({
        status: 401,
        challenge: 'Bearer error="invalid_token"',
      });
      const allowed = await scrape(`${service.url}/metrics`, metricsToken);
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('tokenops_http_request_duration_seconds');
      const own = await scrape(service.metricsUrl!);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain('process_cpu_seconds_total');
    } finally {
      await service.close();
    }
  });
});

describe('what on-call sees of each request', () => {
  it('one route template per route whatever the status, and the error code of each refusal, in the log and the metrics', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const logger = winston.createLogger({
      format: winston.format.json(),
      transports: [new winston.transports.Stream({ stream: sink })],
    });
    const metricsToken = randomBytes(16).toString('hex');
    const service = await startEmbedded({
      port: 0,
      databaseTemplate: await databaseTemplate(),
      keyEncryptionKey: randomBytes(32),
      jwtSecret: randomBytes(32),
      logger,
      metricsToken,
    });
    try {
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${service.url}${path}`, {
          method,
          ...(body !== undefined && {
            body: JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          }),
        });
      const wallet = generateSigner().address;
      expect((await call('POST', '/api/v1/orchestrator/auth/challenge', { wallet })).status).toBe(200);
      expect((await call('POST', '/api/v1/orchestrator/auth/challenge', { wallet: 7 })).status).toBe(400);
      const notJson = await fetch(`${service.url}/api/v1/orchestrator/auth/challenge`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'wallet',
      });
      expect(notJson.status).toBe(400); // refused before the router reached the route
      expect((await call('GET', '/api/v1/limits')).status).toBe(401);
      expect((await call('DELETE', '/api/v1/limits')).status).toBe(404);
      expect((await call('GET', '/api/v1/agents/a-1/nothing-here')).status).toBe(404);
      // Routes of no contract row are named by their own template, a refusal on them too.
      expect((await call('GET', '/healthz')).status).toBe(200);
      expect((await call('POST', '/mcp', {})).status).toBe(401);
      const requests = lines.filter((l) => l.message === 'request');
      expect(requests.map((l) => [l.route, l.path, l.status, l.code])).toEqual([
        ['/api/v1/orchestrator/auth/challenge', '/api/v1/orchestrator/auth/challenge', 200, undefined],
        [
          '/api/v1/orchestrator/auth/challenge',
          '/api/v1/orchestrator/auth/challenge',
          400,
          'validation_error',
        ],
        [
          '/api/v1/orchestrator/auth/challenge',
          '/api/v1/orchestrator/auth/challenge',
          400,
          'validation_error',
        ],
        ['/api/v1/limits', '/api/v1/limits', 401, 'unauthorized'],
        ['unmatched', '/api/v1/limits', 404, 'not_found'],
        ['unmatched', '/api/v1/agents/a-1/nothing-here', 404, 'not_found'],
        ['/healthz', '/healthz', 200, undefined],
        ['/mcp', '/mcp', 401, 'unauthorized'],
      ]);
      const scrape = await fetch(`${service.url}/metrics`, {
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      const text = await scrape.text();
      const counted = text
        .split('\n')
        .filter((l) => l.startsWith('tokenops_http_requests_total{'))
        .map((l) => l.replace(/,?process="[^"]*"/, ''));
      expect(counted).toEqual(
        expect.arrayContaining([
          'tokenops_http_requests_total{method="POST",route="/api/v1/orchestrator/auth/challenge",status="200",code=""} 1',
          'tokenops_http_requests_total{method="POST",route="/api/v1/orchestrator/auth/challenge",status="400",code="validation_error"} 2',
          'tokenops_http_requests_total{method="GET",route="/api/v1/limits",status="401",code="unauthorized"} 1',
          'tokenops_http_requests_total{method="GET",route="unmatched",status="404",code="not_found"} 1',
          'tokenops_http_requests_total{method="DELETE",route="unmatched",status="404",code="not_found"} 1',
        ]),
      );
      expect(text).not.toContain('route="/limits"');
      expect(text).not.toContain('a-1');
    } finally {
      await service.close();
    }
  });
});

describe('requests Node refuses before the service sees them', () => {
  it('headers over 16 KiB get the error envelope', async () => {
    const r = await world.client.call('GET', '/api/v1/limits', {
      headers: { 'x-padding': 'a'.repeat(20_000) },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(
      expect.objectContaining({
        error: 'validation_error',
        details: [{ path: '', issue: 'headers too large' }],
      }),
    );
  });
});
