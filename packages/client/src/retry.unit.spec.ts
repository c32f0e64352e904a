import { retryAfterMs, retryDelayMs, retryingFetch } from './retry';

describe('Retry-After', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');

  it('reads delta-seconds and an HTTP date; anything else is no instruction', () => {
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Sun, 22 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Sun, 22 Nov 2026 11:59:00 GMT', now)).toBe(0); // a date past: now
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-1', now)).toBeUndefined();
  });
});

describe('the wait between attempts', () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles the backoff at each retry, with jitter between half and all of it, up to the cap', () => {
    expect(retryDelayMs(0, undefined, options, () => 0)).toBe(50);
    expect(retryDelayMs(0, undefined, options, () => 1)).toBe(100);
    expect(retryDelayMs(2, undefined, options, () => 1)).toBe(400);
    expect(retryDelayMs(9, undefined, options, () => 1)).toBe(1000);
  });

  it('waits what Retry-After asks when it is longer than the backoff, never more than the cap', () => {
    expect(retryDelayMs(0, 700, options, () => 1)).toBe(700);
    expect(retryDelayMs(3, 0, options, () => 1)).toBe(800);
    expect(retryDelayMs(0, 5000, options, () => 1)).toBe(1000);
  });
});

describe('retryingFetch', () => {
  const answers = (...statuses: (number | Error)[]) => {
    const seen: Request[] = [];
    const fetch = async (request: Request) => {
      seen.push(request);
      const next = statuses[Math.min(seen.length - 1, statuses.length - 1)]!;
      if (next instanceof Error) throw next;
      return new Response('{}', { status: next, headers: next === 429 ? { 'retry-after': '0' } : {} });
    };
    return { fetch, seen };
  };
  const request = () =>
    new Request('http://service.test/api/v1/transfer', { method: 'POST', body: '{"a":1}' });
  const fast = { baseDelayMs: 1, maxDelayMs: 50, maxAttempts: 3 };

  it('retries 429, 5xx and a failed connection with the same body, up to maxAttempts', async () => {
    const { fetch, seen } = answers(503, new TypeError('fetch failed'), 429, 200);
    const r = await retryingFetch(fetch, 'all', { ...fast, maxAttempts: 4 })(request());
    expect(r.status).toBe(200);
    expect(seen).toHaveLength(4);
    expect(await Promise.all(seen.map((s) => s.text()))).toEqual(Array(4).fill('{"a":1}'));

    const always = answers(500);
    expect((await retryingFetch(always.fetch, 'all', fast)(request())).status).toBe(500);
    expect(always.seen).toHaveLength(3);
  });

  it('never retries another 4xx', async () => {
    for (const status of [400, 401, 403, 404, 409]) {
      const { fetch, seen } = answers(status, 200);
      expect((await retryingFetch(fetch, 'all', fast)(request())).status).toBe(status);
      expect(seen).toHaveLength(1);
    }
  });

  it('retries only 429 for an operation that is not idempotent', async () => {
    const failing = answers(502, 200);
    expect((await retryingFetch(failing.fetch, 'rate-limited', fast)(request())).status).toBe(502);
    expect(failing.seen).toHaveLength(1);
    const lost = answers(new TypeError('fetch failed'), 200);
    await expect(retryingFetch(lost.fetch, 'rate-limited', fast)(request())).rejects.toThrow('fetch failed');
    expect(lost.seen).toHaveLength(1);
    const limited = answers(429, 200);
    expect((await retryingFetch(limited.fetch, 'rate-limited', fast)(request())).status).toBe(200);
    expect(limited.seen).toHaveLength(2);
  });

  it('does not wait for a Retry-After past the cap: the 429 goes back to the caller', async () => {
    const seen: Request[] = [];
    const fetch = async (r: Request) => {
      seen.push(r);
      return new Response('{}', { status: 429, headers: { 'retry-after': '60' } });
    };
    const started = Date.now();
    expect((await retryingFetch(fetch, 'all', fast)(request())).status).toBe(429);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
