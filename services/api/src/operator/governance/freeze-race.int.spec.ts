/**
 * The freeze's one gap, closed by the executor: a spend decided on a read of the group made just
 * before its freeze landed is accepted, and the executor, which reads the group before it signs, fails
 * it (`group_frozen`) with nothing sent. The test makes that read by hand (the decision on the group
 * as it stood before the freeze), then lets the embedded service's relay and executor take the intent.
 */
import Big from 'big.js';
import { decideFreezeGroup, decideIntent, streams } from '@tokenops/shared';
import { openBooks } from '@tokenops/testing/conservation';
import { embeddedSuite, until } from '@tokenops/testing/harness';

const suite = embeddedSuite({ rateLimitPerMinute: 10_000 });

it('an intent accepted on a read made before the group froze fails in the executor, nothing signed', async () => {
  const world = suite.world();
  const ctx = suite.ctx();
  const books = await openBooks(world);
  const payer = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 10 });
  const payee = await world.agent();
  const base = ctx.chain.tokens.find((t) => t.symbol === 'USDC')!;

  const before = await ctx.groups.load(streams.group(world.groupId));
  await ctx.groups.handle(streams.group(world.groupId), (state) => ({
    events: decideFreezeGroup(
      { by: world.operator.wallet.address, reason: 'leak', now: ctx.now() },
      state.governance,
    ),
    result: undefined,
  }));

  // The decision a request made on its read of the group from before the freeze.
  const agentStream = streams.agent(payer.id);
  const agent = await ctx.agents.load(agentStream);
  const intentId = `late-${Date.now()}`;
  const decision = decideIntent(
    {
      intent_id: intentId,
      action: 'transfer',
      amount: new Big(5),
      value: new Big(5),
      mint: base.mint,
      decimals: base.decimals,
      counterparty: payee.id,
      now: ctx.now(),
    },
    { group: before.state, agent: agent.state },
  );
  expect(decision.accepted).toBe(true);
  await ctx.agents.append(agentStream, agent, decision.agentEvents);

  const outcome = async () =>
    (await world.log()).find(
      (e) => e.stream === agentStream && ['intent.failed', 'intent.confirmed'].includes(e.type),
    );
  await until(async () => (await outcome()) !== undefined);
  expect((await outcome())!.data).toMatchObject({ intent_id: intentId, code: 'group_frozen' });
  const types = (await world.log()).filter((e) => e.stream === agentStream).map((e) => e.type);
  expect(types).not.toContain('intent.submitting');
  // Its room is given back.
  const limits = await world.client.call<{ daily_remaining: number }>('GET', '/api/v1/limits', {
    token: payer.key,
  });
  expect(limits.body.daily_remaining).toBe(1000);
  await books.expectBalanced();
}, 60_000);
