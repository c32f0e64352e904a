/**
 * Payments from outsiders, on every topology: a wallet the service does not hold sends tokens to an
 * agent on the chain (no airdrop, no intent). The payment watcher records it (`payment.received`, once),
 * the agent's balance shows it, and reconciliation finds nothing (testing/conservation.ts, after each
 * test).
 */
import { ensureTokenAccount, generateSigner, streams, tokenTransfer } from '@tokenops/shared';
import { openBooks } from '@tokenops/testing/conservation';
import { startWorld, type World } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
/** Outsiders no event names: the books count what they hold. */
const outsiders: string[] = [];
// On the topology a rate limit of its own starts two API instances of its own: on a loaded machine
// that took more than the 60 s a hook has by default.
beforeAll(async () => {
  world = await startWorld({ rateLimitPerMinute: 10_000 });
  books = await openBooks(world, { extra: () => outsiders });
}, 180_000);
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world.close());

const chain = () => world.service.ctx.chain;

it('an outsider paying an agent on the chain is recorded as a payment and credited to its balance', async () => {
  const agent = await world.agent({}, 5);
  const usdc = chain().tokens.find((t) => t.symbol === 'USDC')!;
  const outsider = generateSigner();
  outsiders.push(outsider.address);
  const funded = await world.client.call('POST', '/api/v1/dev/airdrop', {
    token: world.operator.token,
    body: { to: outsider.address, amount: 20 },
  });
  expect(funded.status).toBe(200);

  // The outsider signs a plain SPL transfer to the agent's token account.
  const from = await ensureTokenAccount(chain(), outsider.address, usdc.mint);
  const to = await ensureTokenAccount(chain(), agent.id, usdc.mint);
  const tx = await chain().prepare(
    [
      ...to.create,
      tokenTransfer(from.account, to.account, outsider.address, usdc.mint, 12_500_000n, usdc.decimals),
    ],
    [outsider],
  );
  await chain().submit(tx);

  const balance = async () =>
    (
      await world.client.call<{ balances: Record<string, number> }>('GET', '/api/v1/balance', {
        token: agent.key,
      })
    ).body.balances.USDC;
  const until = Date.now() + 15_000;
  while (Date.now() < until && (await balance()) !== 17.5)
    await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await balance()).toBe(17.5);

  const payments = (await world.service.ctx.store.readStream(streams.payments(agent.id))).map((e) => ({
    type: e.type,
    ...(e.data as Record<string, unknown>),
  }));
  expect(payments).toEqual([
    expect.objectContaining({ type: 'payment.received', amount: '5' }),
    expect.objectContaining({
      type: 'payment.received',
      mint: usdc.mint,
      amount: '12.5',
      from: outsider.address,
      tx_signature: tx.signature,
    }),
  ]);
}, 30_000);
