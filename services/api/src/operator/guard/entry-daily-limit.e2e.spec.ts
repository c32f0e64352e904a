/**
 * An allow-list entry's own daily limit, over HTTP as an operator and its agents use it: set with the
 * entry and read back with the group, refused input, held exactly under parallel spends by several
 * agents to one recipient, counted for swaps through the aggregator (a type-2 entry), its room given
 * back by a spend that fails, and changed at once when it narrows and by a proposal when it widens.
 * Money is conserved after each test.
 */
import { generateSigner } from '@tokenops/shared';
import { openBooks } from '@tokenops/testing/conservation';
import {
  enact,
  key,
  signProposal,
  startWorld,
  tally,
  type ProposalReply,
  type World,
} from '@tokenops/testing/harness';

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

interface Entry {
  whitelist_entry_pda: string;
  address: string;
  type: number;
  label: string | null;
  approved_amount: string | null;
  daily_limit: string | null;
  spent_last_24h: string | null;
  budget_used: string | null;
  budget_remaining: string | null;
}

const whitelistPath = () => `/api/v1/orchestrator/groups/${world.groupId}/whitelist`;
const entryPath = (entry: string) => `${whitelistPath()}/${entry}`;
const entries = async (): Promise<Entry[]> =>
  (
    await world.client.call<{ whitelist: Entry[] }>('GET', `/api/v1/orchestrator/groups/${world.groupId}`, {
      token: world.operator.token,
    })
  ).body.whitelist;
const entryOf = async (address: string): Promise<Entry> =>
  (await entries()).find((e) => e.address === address)!;
const aggregator = async (): Promise<Entry> => (await entries()).find((e) => e.label === 'aggregator')!;
const patch = (entry: string, body: unknown) =>
  world.client.call('PATCH', entryPath(entry), { token: world.operator.token, body });
const pay = (agentKey: string, to: string, amount: number) =>
  world.client.call('POST', '/api/v1/transfer', {
    token: agentKey,
    body: { to, amount, idempotency_key: key() },
  });

const token = (symbol: string) => world.service.ctx.chain.tokens.find((t) => t.symbol === symbol)!;
const swapUsdcForSol = (agentKey: string, amount: number) =>
  world.client.call('POST', '/api/v1/swap', {
    token: agentKey,
    body: {
      from_token: 'USDC',
      to_token: 'SOL',
      from_mint: token('USDC').mint,
      to_mint: token('SOL').mint,
      amount,
      idempotency_key: key(),
    },
  });

const roomy = { per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 1000 };

describe('an entry’s daily limit', () => {
  /** A recipient allow-listed with a budget of 1,000 and a daily limit of 10. */
  let limited: string;

  it('is set with the entry, and the group answers it with what its window holds', async () => {
    limited = generateSigner().address;
    const added = await world.allow({
      address: limited,
      type: 1,
      label: 'limited',
      approved_amount: 1000,
      ttl_seconds: 86_400,
      daily_limit: '10',
    });
    expect(added).toMatchObject({ address: limited, daily_limit: '10', spent_last_24h: '0' });
    expect(await entryOf(limited)).toMatchObject({
      daily_limit: '10',
      spent_last_24h: '0',
      approved_amount: '1000',
      budget_remaining: '1000',
    });
    // An entry without one says so, and keeps no window.
    expect(await entryOf(world.vendor)).toMatchObject({ daily_limit: null, spent_last_24h: null });
    expect(await aggregator()).toMatchObject({ type: 2, daily_limit: null, spent_last_24h: null });
  });

  it('refuses bad input with the field named, and changes nothing', async () => {
    const stranger = generateSigner().address;
    const bad = await world.client.call('POST', whitelistPath(), {
      token: world.operator.token,
      body: { address: stranger, type: 2, daily_limit: 'ten' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_amount');
    expect(JSON.stringify(bad.body)).toContain('daily_limit');
    const entry = (await entryOf(limited)).whitelist_entry_pda;
    const missing = await patch(entry, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('validation_error');
    expect(JSON.stringify(missing.body.details)).toContain('/daily_limit');
    const negative = await patch(entry, { daily_limit: '-1' });
    expect(negative.status).toBe(400);
    expect(JSON.stringify(negative.body)).toContain('daily_limit');
    const unknown = await patch(entry, { daily_limit: '5', budget: '1' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('validation_error');
    // An agent's own entry takes none; an entry that is not the group's is not found.
    const agent = await world.agent(roomy, 0);
    const own = (await entryOf(agent.id)).whitelist_entry_pda;
    expect((await patch(own, { daily_limit: '5' })).status).toBe(409);
    expect((await patch(generateSigner().address, { daily_limit: '5' })).status).toBe(404);
    expect((await entries()).some((e) => e.address === stranger)).toBe(false);
    expect(await entryOf(limited)).toMatchObject({ daily_limit: '10', spent_last_24h: '0' });
  });

  it('25 parallel spends of 1 by five agents to one recipient under a daily limit of 10: exactly 10 confirm', async () => {
    const agents = await Promise.all(Array.from({ length: 5 }, () => world.agent(roomy, 20)));
    const replies = await Promise.all(
      Array.from({ length: 25 }, (_, i) => pay(agents[i % 5]!.key, limited, 1)),
    );
    expect(tally(replies)).toEqual({ confirmed: 10, entry_daily_limit_exceeded: 15 });
    const refused = replies.find((r) => r.status === 403)!;
    expect(refused.body.message).toContain("entry's daily limit");
    // The window and the budget agree: 10 sent, 10 of the budget used.
    expect(await entryOf(limited)).toMatchObject({
      daily_limit: '10',
      spent_last_24h: '10',
      budget_used: '10',
      budget_remaining: '990',
    });
    // Simulate names the entry's limit; the variant's daily check fails with it.
    const sim = await world.client.call('POST', '/api/v1/intents/simulate', {
      token: agents[0]!.key,
      body: { to: limited, amount: 1 },
    });
    expect(sim.body).toMatchObject({ would_succeed: false, reason: 'entry_daily_limit_exceeded' });
    const variant = await world.client.call('POST', '/v1/intents/simulate', {
      token: agents[0]!.key,
      body: { type: 'transfer', recipient: limited, amount: 1 },
    });
    expect(variant.body).toMatchObject({
      would_succeed: false,
      checks: { daily_ok: false, hourly_ok: true, per_tx_ok: true },
      reason: { code: 'entry_daily_limit_exceeded' },
    });
    // Each agent's own room, and another recipient, are untouched by it.
    expect((await pay(agents[0]!.key, world.vendor, 1)).status).toBe(200);
  });

  it('a spend that fails on chain gives its room back', async () => {
    const recipient = generateSigner().address;
    const entry = await world.allow({
      address: recipient,
      type: 1,
      approved_amount: 100,
      ttl_seconds: 86_400,
      daily_limit: 3,
    });
    const poor = await world.agent(roomy, 1);
    const rich = await world.agent(roomy, 20);
    // poor holds 1 token: a spend of 2 is accepted and reserved, then fails (insufficient funds).
    expect((await pay(poor.key, recipient, 2)).body.error).toBe('insufficient_balance');
    const releases = (await world.log()).filter(
      (e) => e.type === 'budget.released' && e.stream === `budget-${entry.whitelist_entry_pda as string}`,
    );
    expect(releases).toHaveLength(1);
    expect(tally(await Promise.all([1, 2, 3, 4].map(() => pay(rich.key, recipient, 1))))).toEqual({
      confirmed: 3,
      entry_daily_limit_exceeded: 1,
    });
    expect(await entryOf(recipient)).toMatchObject({ spent_last_24h: '3', budget_used: '3' });
  });

  it('counts swaps through the aggregator (a type-2 entry) once it has one: set at once, exact in parallel', async () => {
    const agg = await aggregator();
    const swapper = await world.agent(roomy, 100);
    // No limit yet: a swap does not touch the entry's stream.
    expect((await swapUsdcForSol(swapper.key, 5)).status).toBe(200);
    const stream = `budget-${agg.whitelist_entry_pda}`;
    expect((await world.log()).filter((e) => e.stream === stream)).toEqual([]);
    // Setting a limit narrows: in force at once.
    const set = await patch(agg.whitelist_entry_pda, { daily_limit: '25' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      whitelist_entry_pda: agg.whitelist_entry_pda,
      type: 2,
      daily_limit: '25',
      spent_last_24h: '0',
    });
    const others = await Promise.all([1, 2].map(() => world.agent(roomy, 100)));
    const replies = await Promise.all(
      [swapper, ...others, swapper, ...others].map((a) => swapUsdcForSol(a.key, 10)),
    );
    expect(tally(replies)).toEqual({ confirmed: 2, entry_daily_limit_exceeded: 4 });
    expect(await aggregator()).toMatchObject({ daily_limit: '25', spent_last_24h: '20' });
    // Reserved in the entry's stream, and consumed with each swap's outcome.
    const types = (await world.log()).filter((e) => e.stream === stream).map((e) => e.type);
    expect(types.filter((t) => t === 'budget.reserved')).toHaveLength(2);
    expect(types.filter((t) => t === 'budget.consumed')).toHaveLength(2);
    const variant = await world.client.call('POST', '/v1/intents/simulate', {
      token: swapper.key,
      body: {
        type: 'swap',
        input_mint: token('USDC').mint,
        output_mint: token('SOL').mint,
        input_amount: 10,
      },
    });
    expect(variant.body).toMatchObject({
      would_succeed: false,
      checks: { daily_ok: false },
      reason: { code: 'entry_daily_limit_exceeded' },
    });
  });

  it('a raise is a proposal that changes nothing until signed; lowering is at once; lifting is a proposal', async () => {
    const agg = await aggregator();
    const swapper = await world.agent(roomy, 100);
    const raised = await patch(agg.whitelist_entry_pda, { daily_limit: '30' });
    expect(raised.status).toBe(202);
    expect(raised.body).toMatchObject({
      action: 'allow_list.daily_limit',
      status: 'pending',
      params: { entry: agg.whitelist_entry_pda, daily_limit: '30' },
    });
    expect(await aggregator()).toMatchObject({ daily_limit: '25', spent_last_24h: '20' });
    expect((await swapUsdcForSol(swapper.key, 10)).body.error).toBe('entry_daily_limit_exceeded');
    // Signed by the group's admin (quorum 1, no delay): in force, and the window kept what it counted.
    const signed = await signProposal(world.client, world.operator, raised.body as unknown as ProposalReply);
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({
      status: 'executed',
      result: { daily_limit: '30', spent_last_24h: '20' },
    });
    expect((await swapUsdcForSol(swapper.key, 10)).status).toBe(200);
    expect(await aggregator()).toMatchObject({ daily_limit: '30', spent_last_24h: '30' });
    // What is in force already: a conflict. Lowering: at once.
    expect((await patch(agg.whitelist_entry_pda, { daily_limit: '30' })).status).toBe(409);
    const lowered = await patch(agg.whitelist_entry_pda, { daily_limit: '29.5' });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ daily_limit: '29.5' });
    // Lifting widens: a proposal; signed, the entry has none and its spends touch its stream no more.
    const lift = await patch(agg.whitelist_entry_pda, { daily_limit: null });
    expect(lift.status).toBe(202);
    expect(await aggregator()).toMatchObject({ daily_limit: '29.5' });
    const lifted = await enact(world.client, [world.operator], 'PATCH', entryPath(agg.whitelist_entry_pda), {
      daily_limit: null,
    });
    expect(lifted.body).toMatchObject({
      status: 'executed',
      result: { daily_limit: null, spent_last_24h: null },
    });
    const before = (await world.log()).filter((e) => e.stream === `budget-${agg.whitelist_entry_pda}`).length;
    expect((await swapUsdcForSol(swapper.key, 10)).status).toBe(200);
    expect((await world.log()).filter((e) => e.stream === `budget-${agg.whitelist_entry_pda}`)).toHaveLength(
      before,
    );
  });
});
