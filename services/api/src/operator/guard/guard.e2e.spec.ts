/**
 * The guard's rules, over HTTP as an operator and its agents live them: read back, set at once when
 * they tighten and proposed when they loosen, refused input named by its field; a spend a rule holds
 * (409 approval_required, the approval naming the rule and its figures, simulate naming it too) then
 * approved and confirmed; a rule that freezes the agent on its behaviour (velocity), and one that
 * freezes it on its refusals, each with `guard.tripped` and `agent.frozen {by: "guard"}` in the log.
 * Money is conserved after each test.
 */
import bs58 from 'bs58';
import { openBooks } from '@tokenops/testing/conservation';
import { approvalIdIn, enact, key, startWorld, until, type World } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld({ vendorBudget: 1000, rateLimitPerMinute: 10_000 });
  books = await openBooks(world);
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world?.close());

const guardPath = () => `/api/v1/orchestrator/groups/${world.groupId}/guard`;
const get = () => world.client.call('GET', guardPath(), { token: world.operator.token });
const put = (body: unknown) => world.client.call('PUT', guardPath(), { token: world.operator.token, body });
/** Sets the rules whatever they replace: at once, or a proposal the operator (the only admin) signs. */
async function rules(list: unknown[]) {
  const r = await enact(world.client, [world.operator], 'PUT', guardPath(), { rules: list });
  if (r.status !== 200) throw new Error(`rules not set: ${r.status} ${JSON.stringify(r.body)}`);
}
type Agent = { id: string; key: string };
const transfer = (agent: Agent, amount: number, idempotency_key = key()) =>
  world.client.call('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount, idempotency_key },
  });
const eventsOf = async (agent: Agent, type: string) =>
  (await world.log()).filter((e) => e.stream === `agent-${agent.id}` && e.type === type);
const limits = { per_tx_limit: 5, daily_limit: 100, hourly_tx_cap: 100 };

describe('the guard', () => {
  it('has no rules until set, and refuses a bad rule naming its field, changing nothing', async () => {
    expect((await get()).body).toEqual({ group_config_pda: world.groupId, rules: [] });
    const bad = await put({ rules: [{ kind: 'velocity', factor: 0.5, min_count: 3, action: 'hold' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
    expect(JSON.stringify(bad.body.details)).toContain('/rules/0/factor');
    const unknownKind = await put({ rules: [{ kind: 'moon_phase', action: 'hold' }] });
    expect(unknownKind.status).toBe(400);
    const twice = await put({
      rules: [
        { kind: 'new_token', action: 'hold' },
        { kind: 'new_token', action: 'freeze_agent' },
      ],
    });
    expect(twice.status).toBe(400);
    expect(JSON.stringify(twice.body.details)).toContain('one rule of a kind');
    const zone = await put({
      rules: [{ kind: 'quiet_hours', from: '22:00', to: '06:00', time_zone: 'Mars/Olympus', action: 'hold' }],
    });
    expect(zone.status).toBe(400);
    expect(JSON.stringify(zone.body.details)).toContain('/rules/0/time_zone');
    const refusalsHold = await put({
      rules: [{ kind: 'refusals', count: 3, window_seconds: 600, action: 'hold' }],
    });
    expect(refusalsHold.status).toBe(400);
    expect((await get()).body).toEqual({ group_config_pda: world.groupId, rules: [] });
  });

  it('applies added or tightened rules at once; a removed or loosened one is a proposal that changes nothing until signed', async () => {
    const velocity = { kind: 'velocity', factor: 5, min_count: 10, action: 'hold' };
    const added = await put({ rules: [velocity] });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ group_config_pda: world.groupId, rules: [velocity] });
    const tightened = await put({ rules: [{ ...velocity, factor: 3, action: 'freeze_agent' }] });
    expect(tightened.status).toBe(200);
    expect((await put({ rules: [{ ...velocity, factor: 3, action: 'freeze_agent' }] })).status).toBe(409);
    const loosened = await put({ rules: [{ ...velocity, factor: 3, action: 'hold' }] });
    expect(loosened.status).toBe(202);
    expect(loosened.body).toMatchObject({ action: 'group.guard', status: 'pending' });
    const removed = await put({ rules: [] });
    expect(removed.status).toBe(202);
    expect((await get()).body).toMatchObject({
      rules: [{ kind: 'velocity', factor: 3, action: 'freeze_agent' }],
    });
    // The time zone is kept as the clock database names it.
    await rules([
      { kind: 'quiet_hours', from: '02:00', to: '02:00', time_zone: 'europe/paris', action: 'hold' },
    ]);
    expect((await get()).body).toMatchObject({ rules: [{ kind: 'quiet_hours', time_zone: 'Europe/Paris' }] });
    await rules([]);
    expect((await get()).body).toMatchObject({ rules: [] });
  });

  it('holds a spend a rule trips; the approval names the rule; approved, it confirms, and the next spend passes', async () => {
    await rules([{ kind: 'new_counterparty', action: 'hold' }]);
    const agent = await world.agent(limits, 20);
    const sim = await world.client.call('POST', '/api/v1/intents/simulate', {
      token: agent.key,
      body: { to: world.vendor, amount: 1 },
    });
    expect(sim.body).toMatchObject({
      would_succeed: false,
      reason: 'approval_required',
      held_by: ['new_counterparty'],
    });
    const variant = await world.client.call('POST', '/v1/intents/simulate', {
      token: agent.key,
      body: { type: 'transfer', recipient: world.vendor, amount: 1 },
    });
    expect(variant.body).toMatchObject({
      would_succeed: false,
      reason: {
        code: 'approval_required',
        message: expect.stringContaining('Held by the guard: new_counterparty'),
      },
      held_by: ['new_counterparty'],
    });
    const idempotency_key = key();
    const held = await transfer(agent, 1, idempotency_key);
    expect(held.status).toBe(409);
    expect(held.body.error).toBe('approval_required');
    const id = approvalIdIn(held.body.message);
    const approval = await world.client.call<{
      hold_reason: string;
      guard: { rule: string; action: string; figures: Record<string, unknown>; words: string }[];
      message: string;
    }>('GET', `/api/v1/orchestrator/approvals/${id}`, { token: world.operator.token });
    expect(approval.body).toMatchObject({
      hold_reason: 'guard',
      guard: [{ rule: 'new_counterparty', action: 'hold', figures: { entry_id: expect.any(String) } }],
    });
    expect(approval.body.guard[0]!.words).toContain('first spend');
    const tripped = await eventsOf(agent, 'guard.tripped');
    expect(tripped).toHaveLength(1);
    expect(tripped[0]!.data).toMatchObject({ rule: 'new_counterparty', action: 'hold', agent_id: agent.id });
    // No approval policy: the owner approves, quorum 1.
    const signature = bs58.encode(world.operator.wallet.sign(Buffer.from(approval.body.message, 'utf8')));
    const approved = await world.client.call('POST', `/api/v1/orchestrator/approvals/${id}/approve`, {
      token: world.operator.token,
      body: { signature },
    });
    expect(approved.body).toMatchObject({ status: 'approved' });
    const retried = await until(async () => {
      const r = await transfer(agent, 1, idempotency_key);
      return r.status !== 409 && r;
    });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'confirmed' });
    // The entry is no longer new to this agent once a spend to it confirmed.
    expect((await transfer(agent, 1)).status).toBe(200);
    expect(await eventsOf(agent, 'guard.tripped')).toHaveLength(1);
  });

  it('freezes an agent that suddenly spends faster than usual (velocity, freeze_agent)', async () => {
    await rules([{ kind: 'velocity', factor: 1, min_count: 3, action: 'freeze_agent' }]);
    const agent = await world.agent(limits, 20);
    // Young and without a past, its usual is what it spent so far: the third spend reaches min_count.
    expect((await transfer(agent, 1)).status).toBe(200);
    expect((await transfer(agent, 1)).status).toBe(200);
    const third = await transfer(agent, 1);
    expect(third.status).toBe(403);
    expect(third.body.error).toBe('agent_frozen');
    expect(third.body.message).toContain('The guard froze this agent: velocity (3 spends in the last hour');
    const next = await transfer(agent, 1);
    expect(next.body.error).toBe('agent_frozen');
    expect(next.body.message).toContain('The guard froze this agent at');
    expect((await eventsOf(agent, 'guard.tripped'))[0]!.data).toMatchObject({
      rule: 'velocity',
      action: 'freeze_agent',
      figures: { count: 3, factor: 1, min_count: 3 },
    });
    expect((await eventsOf(agent, 'agent.frozen'))[0]!.data).toMatchObject({ by: 'guard' });
    const group = await world.client.call<{ agents: { agent_wallet_pda: string; frozen: unknown }[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${world.groupId}`,
      { token: world.operator.token },
    );
    expect(group.body.agents.find((a) => a.agent_wallet_pda === agent.id)!.frozen).toMatchObject({
      by: 'guard',
    });
  });

  it('freezes an agent whose spends keep being refused (refusals): the refusal that reaches the count answers its own code', async () => {
    await rules([{ kind: 'refusals', count: 2, window_seconds: 3600, action: 'freeze_agent' }]);
    const agent = await world.agent(limits, 20);
    expect((await transfer(agent, 10)).body.error).toBe('per_tx_limit_exceeded');
    const second = await transfer(agent, 10);
    expect(second.body.error).toBe('per_tx_limit_exceeded');
    const after = await transfer(agent, 1);
    expect(after.status).toBe(403);
    expect(after.body.error).toBe('agent_frozen');
    expect((await eventsOf(agent, 'guard.tripped'))[0]!.data).toMatchObject({
      rule: 'refusals',
      figures: { refusals: 2, count: 2, window_seconds: 3600 },
    });
    expect((await eventsOf(agent, 'agent.frozen'))[0]!.data).toMatchObject({ by: 'guard' });
    // Unfreezing is a proposal; signed, the agent spends again.
    const unfrozen = await enact(
      world.client,
      [world.operator],
      'POST',
      `/api/v1/orchestrator/agents/${agent.id}/unfreeze`,
    );
    expect(unfrozen.body).toMatchObject({ status: 'executed' });
    expect((await transfer(agent, 1)).status).toBe(200);
    await rules([]);
  });
});
