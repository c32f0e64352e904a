/**
 * The kill switch: an admin freezes an agent, then the whole group. Every spend asked afterwards is
 * refused (`agent_frozen`, `group_frozen`; simulate and the variant name it), held spends are rejected,
 * reads go on; spends racing the group's freeze on every API instance are each confirmed or refused,
 * none after the freeze's answer. Anyone but an admin is refused and changes nothing. After each test,
 * every unit is held (testing/conservation.ts).
 *
 * Lifting a freeze is a proposal: 202, nothing changes until an admin signs its message; then it
 * executes once (parallel signatures, a cancel, a signature past the end decide nothing more).
 */
import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import type { Signer } from '@tokenops/shared';
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
type Proposal = {
  proposal_id: string;
  status: string;
  message: string;
  action: string;
  params: Record<string, unknown>;
  signatures: { wallet: string }[];
  signatures_required: number;
  result: unknown;
  reason: string | null;
};
const signed = (wallet: Signer, message: string) => bs58.encode(wallet.sign(Buffer.from(message, 'utf8')));
const sign = (p: Proposal, wallet: Signer = world.operator.wallet, token = world.operator.token) =>
  world.client.call<Proposal>('POST', `/api/v1/orchestrator/proposals/${p.proposal_id}/sign`, {
    token,
    body: { signature: signed(wallet, p.message) },
  });
const unfreezeAgent = (agentId: string) =>
  world.client.call<Proposal>('POST', `/api/v1/orchestrator/agents/${agentId}/unfreeze`, {
    token: world.operator.token,
    body: {},
  });
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

describe('lifting a freeze: a proposal', () => {
  it('answers 202 and changes nothing until an admin signs its message; then it executes once, carrying its id', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 50 });
    await freezeAgent(agent.id, { reason: 'check' });
    const proposed = await unfreezeAgent(agent.id);
    expect(proposed.status).toBe(202);
    expect(proposed.body).toMatchObject({
      action: 'agent.unfreeze',
      params: { agent: agent.id },
      status: 'pending',
      signatures: [],
      signatures_required: 1,
      result: null,
    });
    const p = proposed.body;
    for (const term of [world.groupId, 'agent.unfreeze', agent.id, p.proposal_id])
      expect(p.message).toContain(term);
    expect((await transfer(agent, 1)).body.error).toBe('agent_frozen');

    // A signature of another text, another wallet's, or a stranger: refused, nothing recorded.
    const stranger = await signIn(world.client);
    const forged = await world.client.call<Refusal>(
      'POST',
      `/api/v1/orchestrator/proposals/${p.proposal_id}/sign`,
      {
        token: world.operator.token,
        body: { signature: signed(world.operator.wallet, `${p.message}!`) },
      },
    );
    expect([forged.status, forged.body.error]).toEqual([400, 'validation_error']);
    expect((await sign(p, stranger.wallet)).status).toBe(400);
    expect((await sign(p, stranger.wallet, stranger.token)).status).toBe(403);
    const read = await world.client.call<Proposal>('GET', `/api/v1/orchestrator/proposals/${p.proposal_id}`, {
      token: world.operator.token,
    });
    expect(read.body).toEqual(p);

    // The admin signs, several times at once: executed once.
    const signatures = await Promise.all([sign(p), sign(p), sign(p)]);
    const executed = signatures.filter((r) => r.status === 200 && r.body.status === 'executed');
    expect(executed.length).toBeGreaterThan(0);
    for (const r of signatures) expect([200, 409]).toContain(r.status);
    expect(executed[0]!.body).toMatchObject({
      status: 'executed',
      signatures: [{ wallet: world.operator.wallet.address }],
      result: { agent_wallet_pda: agent.id, frozen: null },
    });
    expect((await transfer(agent, 1)).status).toBe(200);

    const log = await world.log();
    const unfrozen = log.filter((e) => e.type === 'agent.unfrozen' && e.stream === `agent-${agent.id}`);
    expect(unfrozen.map((e) => (e.data as { proposal_id?: string }).proposal_id)).toEqual([p.proposal_id]);
    const closings = log.filter(
      (e) =>
        e.type === 'governance.executed' && (e.data as { proposal_id: string }).proposal_id === p.proposal_id,
    );
    expect(closings).toHaveLength(1);
    // Over: a signature or a cancel now is a conflict.
    expect((await sign(p)).status).toBe(409);
    const cancel = await world.client.call('POST', `/api/v1/orchestrator/proposals/${p.proposal_id}/cancel`, {
      token: world.operator.token,
      body: {},
    });
    expect(cancel.status).toBe(409);
  }, 60_000);

  it('a cancelled proposal never executes; a change that does not apply is refused at once; the list filters by status', async () => {
    const agent = await world.agent();
    const notFrozen = await unfreezeAgent(agent.id);
    expect([notFrozen.status, (notFrozen.body as unknown as Refusal).error]).toEqual([409, 'conflict']);

    await freezeAgent(agent.id);
    const p = (await unfreezeAgent(agent.id)).body;
    const cancelled = await world.client.call<Proposal>(
      'POST',
      `/api/v1/orchestrator/proposals/${p.proposal_id}/cancel`,
      {
        token: world.operator.token,
        body: { reason: 'not yet' },
      },
    );
    expect(cancelled.body).toMatchObject({ status: 'cancelled', reason: 'not yet' });
    expect((await sign(p)).status).toBe(409);
    expect((await transfer(agent, 1)).body.error).toBe('agent_frozen');

    const list = async (status?: string) =>
      (
        await world.client.call<{ proposals: Proposal[] }>(
          'GET',
          `/api/v1/orchestrator/groups/${world.groupId}/proposals${status ? `?status=${status}` : ''}`,
          { token: world.operator.token },
        )
      ).body.proposals.map((x) => x.proposal_id);
    expect(await list('cancelled')).toContain(p.proposal_id);
    expect(await list('pending')).not.toContain(p.proposal_id);
    expect(await list()).toContain(p.proposal_id);
    const bad = await world.client.call<Refusal>(
      'GET',
      `/api/v1/orchestrator/groups/${world.groupId}/proposals?status=maybe`,
      {
        token: world.operator.token,
      },
    );
    expect([bad.status, bad.body.error]).toEqual([400, 'validation_error']);
    const stranger = await signIn(world.client);
    const foreign = await world.client.call<Refusal>(
      'GET',
      `/api/v1/orchestrator/proposals/${p.proposal_id}`,
      {
        token: stranger.token,
      },
    );
    expect(foreign.status).toBe(403);
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

    // Lifted by a proposal the admin signs: the agents spend again.
    const proposed = await world.client.call<Proposal>(
      'POST',
      `/api/v1/orchestrator/groups/${world.groupId}/unfreeze`,
      {
        token: world.operator.token,
      },
    );
    expect([proposed.status, proposed.body.action]).toEqual([202, 'group.unfreeze']);
    expect((await transfer(agents[0]!, 1)).body.error).toBe('group_frozen');
    expect((await sign(proposed.body)).body.status).toBe('executed');
    expect((await group()).frozen).toBeNull();
    expect((await transfer(agents[0]!, 1)).status).toBe(200);
  }, 90_000);
});
