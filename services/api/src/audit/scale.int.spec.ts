/**
 * The audit at scale: a log of 100,000 events built by real transfers and swaps on the embedded
 * service (LiteSVM, the real Solana runtime), verified (every hash chain and the running digest) and
 * reconciled with the chain (every confirmed intent's transaction, every movement, every balance).
 *
 * An int test, not e2e: it runs once, on the embedded service. On the topology it would build the
 * same log again at several times the cost and verify nothing more. The time each step took is
 * printed (figures for docs/performance.md come from `npm run bench`, not from here).
 */
import { verifyLog } from '@tokenops/shared';
import { key, startWorld, type World } from '@tokenops/testing/harness';

const TARGET = 100_000;
const AGENTS = 16;
let world: World;

beforeAll(async () => {
  world = await startWorld({ rateLimitPerMinute: 100_000_000, vendorBudget: 1_000_000_000 });
});
afterAll(async () => world?.close());

const mint = (symbol: string) => world.service.ctx.chain.tokens.find((t) => t.symbol === symbol)!.mint;

it('verifies and reconciles a log of 100,000 events built by real transfers and swaps', async () => {
  const limits = { per_tx_limit: 1_000, daily_limit: 1_000_000_000, hourly_tx_cap: 1_000_000 };
  const agents = await Promise.all(Array.from({ length: AGENTS }, () => world.agent(limits, 1_000_000)));
  const request = (i: number) =>
    i % 3 === 2
      ? {
          path: '/api/v1/swap',
          body: {
            from_token: 'USDC',
            to_token: 'SOL',
            from_mint: mint('USDC'),
            to_mint: mint('SOL'),
            amount: 1,
            idempotency_key: key(),
          },
        }
      : { path: '/api/v1/transfer', body: { to: world.vendor, amount: 1, idempotency_key: key() } };
  let waits = 0;
  // As a client does: a spend still executing when its wait ends (409 idempotency_in_progress) is
  // asked again with the same key until it answers.
  const spend = async (agent: { key: string }, i: number) => {
    const { path, body } = request(i);
    for (;;) {
      const answer = await world.client.call('POST', path, { token: agent.key, body });
      if (answer.status !== 409 || answer.body.error !== 'idempotency_in_progress') return answer;
      waits++;
    }
  };
  const events = async () => Number((await world.service.ctx.store.headPosition()).prepare);
  let started = Date.now();
  let spends = 0;
  const refused: unknown[] = [];
  while ((await events()) < TARGET) {
    await Promise.all(
      agents.map(async (agent) => {
        for (let i = 0; i < 25; i++) {
          const answer = await spend(agent, spends + i);
          if (answer.status !== 200) refused.push(answer.body);
        }
      }),
    );
    spends += AGENTS * 25;
  }
  expect(refused).toEqual([]);
  console.log(
    `built ${await events()} events by ${spends} spends in ${(Date.now() - started) / 1000} s (${waits} asked again)`,
  );

  started = Date.now();
  const whole = await verifyLog(world.service.ctx.store);
  expect(whole.broken).toEqual([]);
  expect(whole.events).toBeGreaterThanOrEqual(TARGET);
  expect(whole.hashed).toBe(whole.events);
  const group = await verifyLog(world.service.ctx.store, { groupId: world.groupId });
  expect(group.broken).toEqual([]);
  expect(group.events).toBeGreaterThan(TARGET / 2); // the rest: idempotency records, wallets, sign-ins
  console.log(
    `verified ${whole.events} events, then the group's ${group.events}, in ${(Date.now() - started) / 1000} s`,
  );

  started = Date.now();
  const reconciled = await world.client.call<{
    discrepancies: unknown[];
    transactions: number;
    agents: number;
  }>('GET', `/api/v1/orchestrator/groups/${world.groupId}/reconciliation`, { token: world.operator.token });
  expect(reconciled.status).toBe(200);
  expect(reconciled.body.discrepancies).toEqual([]);
  expect(reconciled.body.agents).toBe(AGENTS);
  expect(reconciled.body.transactions).toBeGreaterThanOrEqual(spends);
  console.log(
    `reconciled ${reconciled.body.transactions} transactions in ${(Date.now() - started) / 1000} s`,
  );
}, 900_000);
