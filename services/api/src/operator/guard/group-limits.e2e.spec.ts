/**
 * The group's own limits, over HTTP as an operator and its agents use them: read back, set at once
 * when they narrow and proposed when they widen, refused input, and held exactly under parallel spends
 * by several agents (on the server topology, across its two API instances). Money is conserved after
 * each test.
 */
import { openBooks } from '@tokenops/testing/conservation';
import { enact, key, startWorld, tally, type World } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld({ vendorBudget: 1000, rateLimitPerMinute: 10_000, databaseThread: true });
  books = await openBooks(world);
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world?.close());

const limitsPath = () => `/api/v1/orchestrator/groups/${world.groupId}/limits`;
const get = () => world.client.call('GET', limitsPath(), { token: world.operator.token });
const put = (body: unknown) => world.client.call('PUT', limitsPath(), { token: world.operator.token, body });

describe('group limits', () => {
  it('are none until set: null limits, and no windows kept', async () => {
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      group_config_pda: world.groupId,
      daily_limit: null,
      hourly_tx_cap: null,
      spent_last_24h: null,
      operations_last_60m: null,
    });
  });

  it('refuse bad input with the field named, and change nothing', async () => {
    const bad = await put({ hourly_tx_cap: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
    expect(JSON.stringify(bad.body.details)).toContain('/hourly_tx_cap');
    const empty = await put({});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe('validation_error');
    const amount = await put({ daily_limit: 'ten' });
    expect(amount.status).toBe(400);
    expect((await get()).body).toMatchObject({ daily_limit: null, hourly_tx_cap: null });
  });

  it('25 parallel spends of 1 by five agents under a group daily limit of 10: exactly 10 confirm', async () => {
    const set = await put({ daily_limit: '10' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ daily_limit: '10', hourly_tx_cap: null, spent_last_24h: '0' });
    const agents = await Promise.all(
      Array.from({ length: 5 }, () =>
        world.agent({ per_tx_limit: 5, daily_limit: 100, hourly_tx_cap: 100 }, 20),
      ),
    );
    const replies = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        world.client.call('POST', '/api/v1/transfer', {
          token: agents[i % 5]!.key,
          body: { to: world.vendor, amount: 1, idempotency_key: key() },
        }),
      ),
    );
    expect(tally(replies)).toEqual({ confirmed: 10, group_daily_limit_exceeded: 15 });
    const refused = replies.find((r) => r.status === 403)!;
    expect(refused.body.message).toContain("group's daily limit");
    expect((await get()).body).toMatchObject({
      daily_limit: '10',
      spent_last_24h: '10',
      operations_last_60m: 10,
    });
    // Simulate names the group's limit, and each agent's own room is untouched by it.
    const sim = await world.client.call('POST', '/api/v1/intents/simulate', {
      token: agents[0]!.key,
      body: { to: world.vendor, amount: 1 },
    });
    expect(sim.body).toMatchObject({ would_succeed: false, reason: 'group_daily_limit_exceeded' });
    // The variant's envelope: its daily check fails, and the reason names the group's limit.
    const variant = await world.client.call('POST', '/v1/intents/simulate', {
      token: agents[0]!.key,
      body: { type: 'transfer', recipient: world.vendor, amount: 1 },
    });
    expect(variant.body).toMatchObject({
      would_succeed: false,
      checks: { daily_ok: false, hourly_ok: true, per_tx_ok: true },
      reason: { code: 'group_daily_limit_exceeded' },
    });
  });

  it('lowering applies at once; lifting or raising is a proposal that changes nothing until signed', async () => {
    const lowered = await put({ daily_limit: '10', hourly_tx_cap: 50 });
    expect(lowered.status).toBe(200);
    const raised = await put({ daily_limit: '1000' });
    expect(raised.status).toBe(202);
    expect(raised.body).toMatchObject({
      action: 'group.limits',
      status: 'pending',
      params: { daily_limit: '1000' },
    });
    expect((await get()).body).toMatchObject({ daily_limit: '10', hourly_tx_cap: 50 });
    // Signed by the group's admin (quorum 1, no delay): in force.
    const signed = await enact(world.client, [world.operator], 'PUT', limitsPath(), { hourly_tx_cap: null });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({
      status: 'executed',
      result: { hourly_tx_cap: null, daily_limit: '10' },
    });
    expect((await get()).body).toMatchObject({ daily_limit: '10', hourly_tx_cap: null });
    const same = await put({ daily_limit: '10' });
    expect(same.status).toBe(409);
  });

  it('an hourly cap across the group counts every agent’s operations, and a failed one gives its room back', async () => {
    await enact(world.client, [world.operator], 'PUT', limitsPath(), { daily_limit: null });
    // The spends counted while the group had limits still count: a cap leaving room for 3 more.
    expect((await put({ hourly_tx_cap: 1000 })).status).toBe(200); // a first cap: at once
    const counted = (await get()).body.operations_last_60m as number;
    expect(counted).toBe(10);
    expect((await put({ hourly_tx_cap: counted + 3 })).status).toBe(200);
    const a = await world.agent({ per_tx_limit: 5, daily_limit: 100, hourly_tx_cap: 100 }, 1);
    const b = await world.agent({ per_tx_limit: 5, daily_limit: 100, hourly_tx_cap: 100 }, 20);
    // a holds 1 token: a spend of 2 is accepted, then fails on chain (insufficient funds); its count is released.
    const failed = await world.client.call('POST', '/api/v1/transfer', {
      token: a.key,
      body: { to: world.vendor, amount: 2, idempotency_key: key() },
    });
    expect(failed.body.error).toBe('insufficient_balance');
    // It was accepted and counted, then failed: its count released in the group's stream.
    const released = (await world.log()).filter(
      (e) => e.type === 'group.spend_released' && e.stream === `group-spends-${world.groupId}`,
    );
    expect(released).toHaveLength(1);
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        world.client.call('POST', '/api/v1/transfer', {
          token: b.key,
          body: { to: world.vendor, amount: 1, idempotency_key: key() },
        }),
      ),
    );
    expect(tally(replies)).toEqual({ confirmed: 3, group_hourly_tx_cap_exceeded: 3 });
  });
});
