/**
 * The kill switch: an admin freezes an agent, then the whole group. Every spend asked afterwards is
 * refused (`agent_frozen`, `group_frozen`; simulate and the variant name it), held spends are rejected,
 * reads go on; spends racing the group's freeze on every API instance are each confirmed or refused,
 * none after the freeze's answer. Anyone but an admin is refused and changes nothing. After each test,
 * every unit is held (testing/conservation.ts).
 *
 * The group's freeze is the file's last test: nothing lifts it but a proposal.
 */
import { randomUUID } from 'node:crypto';
import { openBooks } from '@tokenops/testing/conservation';
import { approvalIdIn, key, signIn, startWorld, until, type World } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld({ rateLimitPerMinute: 10_000, vendorBudget: 100_000 });
  books = await openBooks(world);
}, 60_000);
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => {
  await world?.close();
});

type Agent = { id: string; key: string };
type Freeze = { by: string; reason: string | null; at: string } | null;
type Refusal = { error: string; message: string };

const transfer = (agent: Agent, amount: number, idempotency_key = key()) =>
  world.client.call<Record<string, unknown>>('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount, idempotency_key },
  });
const freezeAgent = (agentId: string, body?: unknown, token = world.operator.token) =>
  world.client.call<Record<string, unknown>>('POST', `/api/v1/orchestrator/agents/${agentId}/freeze`, {
    token,
    ...(body !== undefined && { body }),
  });
const freezeGroup = (body?: unknown, token = world.operator.token) =>
  world.client.call<Record<string, unknown>>('POST', `/api/v1/orchestrator/groups/${world.groupId}/freeze`, {
    token,
    ...(body !== undefined && { body }),
  });
const group = async () =>
  (
    await world.client.call<{ frozen: Freeze; agents: { agent_wallet_pda: string; frozen: Freeze }[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${world.groupId}`,
      { token: world.operator.token },
    )
  ).body;
const typesIn = async (stream: string) =>
  (await world.log()).filter((e) => e.stream === stream).map((e) => e.type);

describe('freezing an agent', () => {
  it('refuses every spend of it at once, names the switch in simulate and the variant, and leaves reads and its neighbours alone', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 50 });
    const neighbour = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 50 });
    expect((await transfer(agent, 1)).status).toBe(200);

    const frozen = await freezeAgent(agent.id, { reason: 'prompt injection suspected' });
    expect(frozen.status).toBe(200);
    expect(frozen.body).toEqual({
      agent_wallet_pda: agent.id,
      group_config_pda: world.groupId,
      frozen: {
        by: world.operator.wallet.address,
        reason: 'prompt injection suspected',
        at: expect.any(String),
      },
      failed_intents: 0,
    });

    const refused = await transfer(agent, 1);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('agent_frozen');
    expect(refused.body.message).toContain('(prompt injection suspected)');
    const sim = await world.client.call<Record<string, unknown>>('POST', '/api/v1/intents/simulate', {
      token: agent.key,
      body: { to: world.vendor, amount: 1 },
    });
    expect(sim.body).toMatchObject({ would_succeed: false, reason: 'agent_frozen' });
    const v1 = await world.client.call<{ error: { code: string } }>('POST', '/v1/transfer', {
      token: agent.key,
      headers: { 'idempotency-key': randomUUID() },
      body: { recipient: world.vendor, amount: 1 },
    });
    expect([v1.status, v1.body.error.code]).toEqual([403, 'agent_frozen']);

    // Reads go on; the neighbour spends; the group shows which agent is frozen.
    const limits = await world.client.call<{ daily_remaining: number }>('GET', '/api/v1/limits', {
      token: agent.key,
    });
    expect([limits.status, limits.body.daily_remaining]).toEqual([200, 999]);
    expect((await transfer(neighbour, 1)).status).toBe(200);
    const g = await group();
    expect(g.frozen).toBeNull();
    expect(g.agents.find((a) => a.agent_wallet_pda === agent.id)!.frozen).toEqual(frozen.body.frozen);
    expect(g.agents.find((a) => a.agent_wallet_pda === neighbour.id)!.frozen).toBeNull();

    // Freezing again records nothing new and keeps the first freeze.
    const again = await freezeAgent(agent.id);
    expect(again.body.frozen).toEqual(frozen.body.frozen);
    const types = await typesIn(`agent-${agent.id}`);
    expect(types.filter((t) => t === 'agent.frozen')).toHaveLength(1);
    // The refusals are on record: the primary's and the variant's.
    expect(types.filter((t) => t === 'intent.blocked')).toHaveLength(2);
  }, 60_000);

  it("rejects the agent's held spends and gives their room back", async () => {
    const agent = await world.agent({
      per_tx_limit: 100,
      daily_limit: 100,
      hourly_tx_cap: 50,
      approval_threshold: '10',
    });
    const held = await transfer(agent, 40);
    expect([held.status, held.body.error]).toEqual([409, 'approval_required']);
    const id = approvalIdIn(held.body.message);

    expect((await freezeAgent(agent.id)).status).toBe(200);
    const approval = await world.client.call<Record<string, unknown>>(
      'GET',
      `/api/v1/orchestrator/approvals/${id}`,
      {
        token: world.operator.token,
      },
    );
    expect(approval.body).toMatchObject({ status: 'rejected', rejected_by: null, reason: 'agent frozen' });
    await until(
      async () =>
        (await world.client.call<{ daily_remaining: number }>('GET', '/api/v1/limits', { token: agent.key }))
          .body.daily_remaining === 100,
    );
  }, 60_000);

  it('is refused to anyone but an admin of the group, and to bad input, changing nothing', async () => {
    const agent = await world.agent();
    const stranger = await signIn(world.client);
    const before = await typesIn(`agent-${agent.id}`);
    const forbidden = await freezeAgent(agent.id, {}, stranger.token);
    expect([forbidden.status, forbidden.body.error]).toEqual([403, 'forbidden']);
    for (const body of [{ reason: '' }, { reason: 'x'.repeat(201) }, { reason: 7 }, { why: 'no' }]) {
      const bad = await freezeAgent(agent.id, body);
      expect([bad.status, bad.body.error]).toEqual([400, 'validation_error']);
    }
    expect((await freezeAgent(agent.id, {}, 'not-a-token')).status).toBe(401);
    const unknown = await freezeAgent('1'.repeat(32));
    expect([unknown.status, unknown.body.error]).toEqual([404, 'not_found']);
    expect(await typesIn(`agent-${agent.id}`)).toEqual(before);
    expect((await transfer(agent, 1)).status).toBe(200);

    await world.client.call('POST', `/api/v1/orchestrator/agents/${agent.id}/revoke`, {
      token: world.operator.token,
      body: {},
    });
    const revoked = await freezeAgent(agent.id);
    expect([revoked.status, revoked.body.error]).toEqual([409, 'conflict']);
  }, 60_000);
});

describe('freezing the group', () => {
  it('refuses every spend of every agent, on every instance, from its answer on; spends racing it are each confirmed or refused', async () => {
    const agents = await Promise.all(
      [1, 2, 3].map(() => world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 100 })),
    );
    const stranger = await signIn(world.client);
    expect((await freezeGroup({}, stranger.token)).status).toBe(403);
    expect((await group()).frozen).toBeNull();

    // Spends of every agent in flight while the group is frozen.
    const racing = agents.flatMap((a) => Array.from({ length: 6 }, () => transfer(a, 1)));
    const frozen = await freezeGroup({ reason: 'key leak' });
    const raced = await Promise.all(racing);
    expect(frozen.status).toBe(200);
    expect(frozen.body).toMatchObject({
      group_config_pda: world.groupId,
      frozen: { by: world.operator.wallet.address, reason: 'key leak', at: expect.any(String) },
    });
    for (const r of raced) {
      expect([200, 403]).toContain(r.status);
      if (r.status === 403) expect(r.body.error).toBe('group_frozen');
    }

    // From the freeze's answer on, nothing passes, whichever instance decides.
    const after = await Promise.all(agents.flatMap((a) => [transfer(a, 1), transfer(a, 1)]));
    expect(after.map((r) => [r.status, (r.body as unknown as Refusal).error])).toEqual(
      after.map(() => [403, 'group_frozen']),
    );
    const sim = await world.client.call<Record<string, unknown>>('POST', '/api/v1/intents/simulate', {
      token: agents[0]!.key,
      body: { to: world.vendor, amount: 1 },
    });
    expect(sim.body).toMatchObject({ would_succeed: false, reason: 'group_frozen' });
    // Reads go on.
    expect((await world.client.call('GET', '/api/v1/balance', { token: agents[0]!.key })).status).toBe(200);
    expect((await group()).frozen).toEqual(frozen.body.frozen);

    // Freezing again keeps the first freeze; the log has one.
    expect((await freezeGroup({ reason: 'again' })).body.frozen).toEqual(frozen.body.frozen);
    expect((await typesIn(`group-${world.groupId}`)).filter((t) => t === 'group.frozen')).toHaveLength(1);
    // Every intent the race accepted is settled: confirmed before the freeze, or failed by it.
    await until(async () => {
      const log = await world.log();
      const accepted = log.filter((e) => e.type === 'intent.accepted').length;
      const settled = log.filter((e) => e.type === 'intent.confirmed' || e.type === 'intent.failed').length;
      return accepted === settled;
    });
  }, 90_000);
});
