/**
 * The operator's view of its groups: the list of its own groups (no one else's), and a group as it
 * stands: each agent's status and limits, each budgeted recipient's budget used and left. And the
 * service's root, which points a newcomer at the reference pages.
 */
import { generateSigner } from '@tokenops/shared';
import {
  invitation,
  key,
  signIn,
  signProposal,
  startWorld,
  type Operator,
  type ProposalReply,
  type World,
} from '@tokenops/testing/harness';

let world: World;
beforeAll(async () => {
  world = await startWorld({ vendorBudget: 100, rateLimitPerMinute: 10_000 });
});
afterAll(async () => world.close());

interface Listed {
  groups: {
    group_config_pda: string;
    created_at: string;
    base_mint: string;
    default_limits: { per_tx_limit: string; daily_limit: string; hourly_tx_cap: number };
    agents: number;
    whitelist_entries: number;
  }[];
}

const list = (token?: string) =>
  world.client.call<Listed>('GET', '/api/v1/orchestrator/groups', { ...(token && { token }) });

const createGroup = async (operator: Operator, body: Record<string, unknown> = {}) =>
  (
    await world.client.call<{ group_config_pda: string }>('POST', '/api/v1/orchestrator/groups', {
      token: operator.token,
      body,
    })
  ).body.group_config_pda;

describe('GET /orchestrator/groups', () => {
  it("lists the caller's groups, oldest first, and none of another operator's", async () => {
    const second = await createGroup(world.operator, { per_tx_limit: 5, daily_limit: 50, hourly_tx_cap: 3 });
    const other = await signIn(world.client);
    const foreign = await createGroup(other);

    const mine = await list(world.operator.token);
    expect(mine.status).toBe(200);
    expect(mine.body.groups.map((g) => g.group_config_pda)).toEqual([world.groupId, second]);
    const [first, latest] = mine.body.groups;
    // The world's group: the aggregator and the vendor on its allow-list, no agent yet.
    expect(first).toEqual(expect.objectContaining({ agents: 0, whitelist_entries: 2 }));
    expect(latest!.default_limits).toEqual({ per_tx_limit: '5', daily_limit: '50', hourly_tx_cap: 3 });
    expect(Date.parse(first!.created_at)).toBeLessThanOrEqual(Date.parse(latest!.created_at));

    const theirs = await list(other.token);
    expect(theirs.body.groups.map((g) => g.group_config_pda)).toEqual([foreign]);
    // A wallet that owns nothing gets an empty list, not an error.
    expect((await list((await signIn(world.client, generateSigner())).token)).body).toEqual({ groups: [] });
  });

  it('answers 401 in the error envelope without a token, or with a bad one', async () => {
    for (const reply of [await list(), await list('not-a-token')]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(expect.objectContaining({ error: 'unauthorized' }));
    }
  });
});

describe('GET /orchestrator/groups/{group}', () => {
  interface Shown {
    agents: { agent_wallet_pda: string; status: string; limits: { per_tx_limit: string } }[];
    whitelist: {
      address: string;
      approved_amount: string | null;
      budget_used: string | null;
      budget_reserved: string | null;
      budget_remaining: string | null;
    }[];
  }
  const show = async () =>
    (
      await world.client.call<Shown>('GET', `/api/v1/orchestrator/groups/${world.groupId}`, {
        token: world.operator.token,
      })
    ).body;

  it("says how much of a recipient's budget is used and left, and whether each agent is active", async () => {
    const spender = await world.agent({ per_tx_limit: 95 }, 200);
    const revoked = await world.agent({}, 0);
    const invited = await invitation(world.client, world.operator, world.groupId, { label: 'not yet' });
    expect(
      (
        await world.client.call('POST', `/api/v1/orchestrator/agents/${revoked.id}/revoke`, {
          token: world.operator.token,
          body: {},
        })
      ).status,
    ).toBe(200);
    const sent = await world.client.call('POST', '/api/v1/transfer', {
      token: spender.key,
      body: { to: world.vendor, amount: 12.5, idempotency_key: key() },
    });
    expect(sent.status).toBe(200);

    const group = await show();
    const status = Object.fromEntries(group.agents.map((a) => [a.agent_wallet_pda, a.status]));
    expect(status).toEqual({
      [spender.id]: 'active',
      [revoked.id]: 'revoked',
      [invited.body.agent_wallet_pda]: 'invited',
    });
    expect(group.agents.find((a) => a.agent_wallet_pda === spender.id)!.limits.per_tx_limit).toBe('95');
    const vendor = group.whitelist.find((e) => e.address === world.vendor)!;
    expect(vendor).toEqual(
      expect.objectContaining({
        approved_amount: '100',
        budget_used: '12.5',
        budget_reserved: '0',
        budget_remaining: '87.5',
      }),
    );
    // Entries without a budget say so.
    for (const e of group.whitelist.filter((x) => x.address !== world.vendor))
      expect([e.budget_used, e.budget_reserved, e.budget_remaining]).toEqual([null, null, null]);

    // More than is left, while budget remains: the message says the budget is too small for this amount.
    const over = await world.client.call<{ error: string; message: string }>('POST', '/api/v1/transfer', {
      token: spender.key,
      body: { to: world.vendor, amount: 90, idempotency_key: key() },
    });
    expect(over.status).toBe(403);
    expect(over.body.error).toBe('whitelist_amount_exhausted');
    expect(over.body.message).toMatch(/less than this amount/);
    expect((await show()).whitelist.find((e) => e.address === world.vendor)!.budget_remaining).toBe('87.5');
  });
});

describe('PATCH /orchestrator/groups/{group}', () => {
  const patch = (group: string, body: unknown, token = world.operator.token) =>
    world.client.call<Record<string, unknown>>('PATCH', `/api/v1/orchestrator/groups/${group}`, {
      token,
      body,
    });
  const defaults = async (group: string) =>
    (
      await world.client.call<{ name: string | null; default_limits: Record<string, unknown> }>(
        'GET',
        `/api/v1/orchestrator/groups/${group}`,
        { token: world.operator.token },
      )
    ).body;

  it('names the group and lowers a default at once; a rise is a proposal, in force once signed', async () => {
    const group = await createGroup(world.operator, {
      per_tx_limit: 50,
      daily_limit: 500,
      hourly_tx_cap: 10,
    });
    const named = await patch(group, {
      name: 'payroll',
      description: 'pays the suppliers',
      per_tx_limit: 40,
    });
    expect(named).toMatchObject({
      status: 200,
      body: {
        group_config_pda: group,
        name: 'payroll',
        description: 'pays the suppliers',
        default_limits: { per_tx_limit: '40', daily_limit: '500', hourly_tx_cap: 10 },
      },
    });
    // A default that rises (even beside one that falls) widens what new agents may spend.
    const proposed = await patch(group, { daily_limit: 900, hourly_tx_cap: 5 });
    expect(proposed).toMatchObject({ status: 202, body: { action: 'group.update', status: 'pending' } });
    expect((await defaults(group)).default_limits).toEqual({
      per_tx_limit: '40',
      daily_limit: '500',
      hourly_tx_cap: 10,
    });
    const signed = await signProposal(
      world.client,
      world.operator,
      proposed.body as unknown as ProposalReply,
    );
    expect(signed.body.status).toBe('executed');
    expect(await defaults(group)).toMatchObject({
      name: 'payroll',
      default_limits: { per_tx_limit: '40', daily_limit: '900', hourly_tx_cap: 5 },
    });
    const invited = await invitation(world.client, world.operator, group);
    expect(invited.body.limits).toEqual({ per_tx_limit: '40', daily_limit: '900', hourly_tx_cap: 5 });
  });

  it('refuses what is in force, bad input and anyone but an admin, and changes nothing', async () => {
    const group = await createGroup(world.operator, {
      per_tx_limit: 50,
      daily_limit: 500,
      hourly_tx_cap: 10,
    });
    expect(await patch(group, { per_tx_limit: 50 })).toMatchObject({
      status: 409,
      body: { error: 'conflict' },
    });
    expect(await patch(group, {})).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    expect(await patch(group, { name: '' })).toMatchObject({
      status: 400,
      body: { error: 'validation_error' },
    });
    expect(await patch(group, { daily_limit: -1 })).toMatchObject({ status: 400 });
    const stranger = await signIn(world.client);
    expect(await patch(group, { name: 'mine' }, stranger.token)).toMatchObject({ status: 403 });
    expect((await defaults(group)).name).toBeNull();
  });
});

describe('GET /', () => {
  it('points at the reference pages and the OpenAPI documents, each of which answers', async () => {
    const root = await world.client.call<{ docs: { title: string; page: string; openapi: string }[] }>(
      'GET',
      '/',
    );
    expect(root.status).toBe(200);
    expect(root.body.docs.map((d) => [d.page, d.openapi])).toEqual([
      ['/docs', '/api/v1/openapi.json'],
      ['/v1/docs', '/v1/openapi.json'],
      ['/orchestrator/docs', '/api/v1/orchestrator/openapi.json'],
    ]);
    for (const d of root.body.docs) {
      const page = await fetch(`${world.client.url}${d.page}`);
      expect([d.page, page.status, page.headers.get('content-type')]).toEqual([
        d.page,
        200,
        expect.stringContaining('text/html'),
      ]);
      const doc = await world.client.call<{ openapi: string }>('GET', d.openapi);
      expect([d.openapi, doc.status, doc.body.openapi]).toEqual([d.openapi, 200, '3.1.0']);
    }
  });
});
