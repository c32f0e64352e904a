/**
 * The per-agent rate limit: 60 requests a minute, counted for each agent alone; on the server
 * topology the client alternates between the API instances, so the count is shown to be shared.
 */
import { startWorld, type World } from '../testing/harness';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.close());

describe('the rate limit', () => {
  it('answers 60 requests a minute of one agent, then 429 with Retry-After, and leaves other agents alone', async () => {
    const agent = await world.agent({}, 0);
    const other = await world.agent({}, 0);
    const first = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('60');
    expect(first.headers.get('ratelimit-remaining')).toBe('59');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);

    const rest = await Promise.all(
      Array.from({ length: 59 }, () => world.client.call('GET', '/api/v1/limits', { token: agent.key })),
    );
    expect(rest.every((r) => r.status === 200)).toBe(true);

    const refused = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: other.id, amount: 1, idempotency_key: 'over-the-limit' },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');

    // Refused before anything was decided: no intent, nothing in the history.
    expect((await world.client.call('GET', '/api/v1/history', { token: other.key })).status).toBe(200);
    const all = await world.service.ctx.store.readAll({ maxCount: 1_000_000 });
    expect(all.some((e) => JSON.stringify(e.data).includes('over-the-limit'))).toBe(false);
  });

  it('does not count requests without a valid key against an agent', async () => {
    const agent = await world.agent({}, 0);
    const forged = `${agent.key.slice(0, -8)}00000000`;
    const bad = await Promise.all(
      Array.from({ length: 70 }, () => world.client.call('GET', '/api/v1/limits', { token: forged })),
    );
    expect(bad.every((r) => r.status === 401)).toBe(true);
    const good = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(good.status).toBe(200);
    expect(good.headers.get('ratelimit-remaining')).toBe('59');
  });
});
