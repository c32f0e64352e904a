/**
 * The per-agent rate limit: 60 requests a minute, counted for each agent alone; and the limit on
 * failed authentication per client address. On the server topology the client alternates between
 * the API instances, so the counts are shown to be shared.
 */
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Context } from '@tokenops/shared';
import { startWorld, type World, invitation } from '@tokenops/testing/harness';

/** A key in our format, checksum right, for a real agent, with a secret that is not its own. */
function forgedKey(agentId: string): string {
  const body = `aw_${bs58.encode(Buffer.concat([bs58.decode(agentId), randomBytes(32)]))}`;
  return `${body}_${crc32(body).toString(16).padStart(8, '0')}`;
}

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
    const all = await world.log();
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

describe('failed authentication, per client address', () => {
  let strict: World;
  beforeAll(async () => {
    strict = await startWorld({ unauthenticatedRateLimitPerMinute: 5 });
  });
  afterAll(async () => strict.close());

  it('answers 5 failures a minute from one address, then 429 with Retry-After before any lookup; agents with a key go on', async () => {
    const agent = await strict.agent({}, 0);
    const codes = await Promise.all(
      Array.from({ length: 5 }, () =>
        strict.client.call('POST', '/api/v1/register', { body: { invitation_code: 'inv_nope_00000000' } }),
      ),
    );
    expect(codes.map((r) => r.body.error)).toEqual(Array(5).fill('invalid_invitation_code'));

    const refused = await strict.client.call('POST', '/api/v1/register', {
      body: { invitation_code: 'inv_nope_00000000' },
    });
    expect({ status: refused.status, error: refused.body.error }).toEqual({
      status: 429,
      error: 'rate_limited',
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The same address, other kinds of failure: refused as well.
    for (const token of [undefined, 'aw_nope_00000000', forgedKey(agent.id)]) {
      const r = await strict.client.call('GET', '/api/v1/limits', { ...(token && { token }) });
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 429, error: 'rate_limited' });
    }
    const signIn = await strict.client.call('GET', `/api/v1/orchestrator/groups/${strict.groupId}`, {
      token: 'not-a-jwt',
    });
    expect(signIn.status).toBe(429);

    // A request that authenticates is not refused for its address.
    expect((await strict.client.call('GET', '/api/v1/limits', { token: agent.key })).status).toBe(200);
    expect(
      (
        await strict.client.call('GET', `/api/v1/orchestrator/groups/${strict.groupId}`, {
          token: strict.operator.token,
        })
      ).status,
    ).toBe(200);
  });
});

/** An invitation code in our format, checksum right, that the operator never issued. */
function forgedCode(groupId: string): string {
  const body = `inv_${bs58.encode(Buffer.concat([bs58.decode(groupId), randomBytes(32), randomBytes(16)]))}`;
  return `${body}_${crc32(body).toString(16).padStart(8, '0')}`;
}

describe('an invitation code past the address’s allowance of failures', () => {
  let fleet: World;
  beforeAll(async () => {
    fleet = await startWorld({ unauthenticatedRateLimitPerMinute: 3 });
  });
  afterAll(async () => fleet.close());

  const invite = async () => (await invitation(fleet.client, fleet.operator, fleet.groupId, {})).body;

  it('a right one registers whatever others at that address did (both contracts); wrong ones stay refused 429', async () => {
    const first = await invite();
    const second = await invite();
    for (let i = 0; i < 4; i++)
      await fleet.client.call('POST', '/api/v1/register', {
        body: { invitation_code: forgedCode(fleet.groupId) },
      });
    for (const invitation_code of ['inv_nope_00000000', forgedCode(fleet.groupId)]) {
      const wrong = await fleet.client.call('POST', '/api/v1/register', { body: { invitation_code } });
      expect({ status: wrong.status, error: wrong.body.error }).toEqual({
        status: 429,
        error: 'rate_limited',
      });
    }

    const reg = await fleet.client.call<{ api_key: string; agent_wallet_pda: string }>(
      'POST',
      '/api/v1/register',
      {
        body: { invitation_code: first.invitation_code },
      },
    );
    expect({ status: reg.status, agent: reg.body.agent_wallet_pda }).toEqual({
      status: 200,
      agent: first.agent_wallet_pda,
    });
    expect((await fleet.client.call('GET', '/api/v1/limits', { token: reg.body.api_key })).status).toBe(200);
    const variant = await fleet.client.call('POST', '/v1/agents/register', {
      body: { invitation_code: second.invitation_code },
    });
    expect({ status: variant.status, agent: variant.body.agent_wallet_pda }).toEqual({
      status: 200,
      agent: second.agent_wallet_pda,
    });
    // Redeemed, a code is a wrong one: refused for the address again.
    const again = await fleet.client.call('POST', '/api/v1/register', {
      body: { invitation_code: first.invitation_code },
    });
    expect(again.status).toBe(429);
  });
});

describe('a key the views do not accept', () => {
  it('is refused without reading the agent’s stream from the log', async () => {
    const agent = await world.agent({}, 0);
    // Embedded only: the test reaches the service's own context (on the topology it is another process).
    const agents = (world.service.ctx as Partial<Context>).agents;
    if (!agents) return;
    const load = jest.spyOn(agents, 'load');
    try {
      const r = await world.client.call('GET', '/api/v1/limits', { token: forgedKey(agent.id) });
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 401, error: 'unauthorized' });
      expect(load).not.toHaveBeenCalled();
    } finally {
      load.mockRestore();
    }
  });

  it('of an agent registered a moment ago is accepted as soon as the views have it', async () => {
    const inv = await invitation(world.client, world.operator, world.groupId, {});
    const reg = await world.client.call<{ api_key: string }>('POST', '/api/v1/register', {
      body: { invitation_code: inv.body.invitation_code },
    });
    expect((await world.client.call('GET', '/api/v1/limits', { token: reg.body.api_key })).status).toBe(200);
  });
});
