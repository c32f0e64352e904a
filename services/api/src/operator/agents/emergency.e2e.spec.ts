/**
 * The operator's emergency withdrawal: the agent is revoked, its venue positions redeemed, every token
 * it holds moved to the destination; transfers racing it are each confirmed before the drain or
 * failed, and afterwards the agent holds nothing and its key is refused. A destination that is another
 * agent of the service is credited (`payment.received`): its balance shows what it got. After each
 * test, every unit is held and reconciliation finds nothing (testing/conservation.ts).
 */
import { generateSigner, streams } from '@tokenops/shared';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import { openBooks } from '@tokenops/testing/conservation';
import {
  RECEIVER_HOST,
  key,
  signIn,
  stackWebhookTls,
  startWorld,
  type World,
  signProposal,
  type ProposalReply,
} from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
/** A webhook receiver (HTTPS on loopback): what the fleet's webhooks are told. */
let receiver: Receiver;
/** Destinations no event names: the books count what they hold. */
const cold: string[] = [];
beforeAll(async () => {
  const tls = stackWebhookTls() ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  world = await startWorld({
    rateLimitPerMinute: 10_000,
    webhooks: { allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`], ca: tls.ca, retryBaseMs: 100 },
  });
  books = await openBooks(world, { extra: () => cold });
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const chain = () => world.service.ctx.chain;
const mintOf = (symbol: string) => chain().tokens.find((t) => t.symbol === symbol)!.mint;

async function heldBy(owner: string): Promise<Record<string, bigint>> {
  const balances = await chain().balances(owner);
  return Object.fromEntries(chain().tokens.map((t) => [t.symbol, balances.get(t.mint) ?? 0n]));
}

/** The service's lending venue, allow-listed for the group. */
async function allowListedVenue(): Promise<string> {
  const venue = (await world.client.call<{ venues: { lending_program: string }[] }>('GET', '/api/v1/venues'))
    .body.venues[0]!.lending_program;
  await world.allow({ address: venue, type: 2, label: 'venue' });
  return venue;
}

/** The agent deposits `deposit` USDC at the venue and swaps `swap` USDC for SOL; the swap's answer. */
async function takePositions(
  agent: { key: string },
  venue: string,
  amounts: { deposit: number; swap: number },
): Promise<Record<string, unknown>> {
  const deposit = await world.client.call('POST', '/api/v1/deposit', {
    token: agent.key,
    body: { lending_program: venue, amount: amounts.deposit, idempotency_key: key() },
  });
  expect(deposit.status).toBe(200);
  const swap = await world.client.call('POST', '/api/v1/swap', {
    token: agent.key,
    body: {
      from_token: 'USDC',
      from_mint: mintOf('USDC'),
      to_token: 'SOL',
      to_mint: mintOf('SOL'),
      amount: amounts.swap,
      idempotency_key: key(),
    },
  });
  expect(swap.status).toBe(200);
  return swap.body;
}

/**
 * An emergency withdrawal as the operator asks it: to the safe destination at once; anywhere else a
 * proposal (202), which the operator signs, as the CLI does: the drain is the executed proposal's result.
 */
async function emergency(agent: string, body: Record<string, unknown> = {}, token = world.operator.token) {
  const path = `/api/v1/orchestrator/agents/${agent}/emergency-withdraw`;
  const asked = await world.client.call<Record<string, unknown>>('POST', path, { token, body });
  if (asked.status !== 202) return asked;
  expect(asked.body).toMatchObject({ action: 'agent.emergency_withdraw', status: 'pending' });
  const signed = await signProposal(world.client, world.operator, asked.body as unknown as ProposalReply);
  expect(signed.body.status).toBe('executed');
  return { ...signed, body: signed.body.result as Record<string, unknown> };
}

describe('emergency withdrawal', () => {
  it('redeems the venue position, moves every token to the operator, revokes the agent', async () => {
    const venue = await allowListedVenue();
    const agent = await world.agent({ per_tx_limit: 500, daily_limit: 1_000, hourly_tx_cap: 20 }, 300);
    const swap = await takePositions(agent, venue, { deposit: 100, swap: 50 });
    const before = await heldBy(agent.id);
    expect(before.kUSDC).toBe(100_000_000n);
    const operatorBefore = await heldBy(world.operator.wallet.address);

    const drained = await emergency(agent.id);
    expect(drained.status).toBe(200);
    expect(drained.body).toEqual(
      expect.objectContaining({
        agent_wallet_pda: agent.id,
        is_active: 'revoked',
        destination: world.operator.wallet.address,
      }),
    );
    expect(drained.body.redeemed).toEqual([
      expect.objectContaining({ token: 'USDC', receipt_token: 'kUSDC', receipt_amount: 100, amount: 100 }),
    ]);
    const moved = Object.fromEntries(
      (drained.body.moved as { token: string; amount: number }[]).map((m) => [m.token, m.amount]),
    );
    expect(moved).toEqual({ USDC: 250, SOL: Number(swap.received_amount) });

    // Nothing is left on the agent's wallet; the operator got it all.
    expect(Object.values(await heldBy(agent.id)).every((units) => units === 0n)).toBe(true);
    const operatorAfter = await heldBy(world.operator.wallet.address);
    expect(operatorAfter.USDC! - operatorBefore.USDC!).toBe(250_000_000n);
    expect(operatorAfter.SOL! - operatorBefore.SOL!).toBe(before.SOL);

    // The key is refused, the views say nothing is held.
    const balance = await world.client.call('GET', '/api/v1/balance', { token: agent.key });
    expect(balance.status).toBe(401);
    expect(balance.body.error).toBe('unauthorized');

    // Again: the agent is drained already, nothing moves.
    const again = await emergency(agent.id);
    expect(again.status).toBe(200);
    expect(again.body.moved).toEqual([]);
  });

  it('sends to a destination the operator names; refuses a bad one, a stranger and an unknown agent', async () => {
    const agent = await world.agent({}, 40);
    const stranger = await signIn(world.client);
    const denied = await emergency(agent.id, {}, stranger.token);
    expect(denied.status).toBe(403);
    const bad = await emergency(agent.id, { destination: 'not-an-address' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
    const itself = await emergency(agent.id, { destination: agent.id });
    expect(itself.status).toBe(400);
    expect(itself.body.error).toBe('recipient_invalid');
    const unknown = await emergency(generateSigner().address);
    expect(unknown.status).toBe(404);
    // Nothing was drained by the refusals.
    expect((await heldBy(agent.id)).USDC).toBe(40_000_000n);

    // Anywhere but the safe destination is a proposal: nothing moves, the agent goes on, until signed.
    const destination = generateSigner().address;
    cold.push(destination);
    const path = `/api/v1/orchestrator/agents/${agent.id}/emergency-withdraw`;
    const proposed = await world.client.call<ProposalReply>('POST', path, {
      token: world.operator.token,
      body: { destination },
    });
    expect(proposed).toMatchObject({
      status: 202,
      body: {
        action: 'agent.emergency_withdraw',
        status: 'pending',
        params: { agent: agent.id, destination },
      },
    });
    expect((await heldBy(agent.id)).USDC).toBe(40_000_000n);
    expect((await world.client.call('GET', '/api/v1/balance', { token: agent.key })).status).toBe(200);
    const signed = await signProposal(world.client, world.operator, proposed.body);
    expect(signed.body).toMatchObject({
      status: 'executed',
      result: { agent_wallet_pda: agent.id, destination, is_active: 'revoked' },
    });
    expect((await heldBy(destination)).USDC).toBe(40_000_000n);
    expect((await heldBy(agent.id)).USDC).toBe(0n);
  });

  it('a burst of transfers racing it: each is confirmed before the drain or failed, and the agent ends empty', async () => {
    const agent = await world.agent({ per_tx_limit: 10, daily_limit: 1_000, hourly_tx_cap: 1_000 }, 200);
    const destination = generateSigner().address;
    cold.push(destination);
    const burst = Array.from({ length: 30 }, () =>
      world.client.call('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: world.vendor, amount: 5, idempotency_key: key() },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const drained = await emergency(agent.id, { destination });
    const answers = await Promise.all(burst);
    expect(drained.status).toBe(200);

    const confirmed = answers.filter((a) => a.status === 200);
    for (const a of answers) {
      if (a.status === 200) expect(a.body.status).toBe('confirmed');
      else expect(a.status).toBeGreaterThanOrEqual(400);
      expect(a.status).toBeLessThan(500);
    }
    // Every unit is accounted for: what the confirmed transfers paid, and what the drain moved.
    const paid = BigInt(confirmed.length) * 5_000_000n;
    expect((await heldBy(agent.id)).USDC).toBe(0n);
    expect((await heldBy(destination)).USDC).toBe(200_000_000n - paid);
    // Nothing reaches the chain after the drain: a little later the agent still holds nothing, the cold wallet the same.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await heldBy(destination)).USDC).toBe(200_000_000n - paid);
    expect((await heldBy(agent.id)).USDC).toBe(0n);
  });

  it('into another agent of the service: it is credited what it received, redeemed position and pool output included', async () => {
    const venue = await allowListedVenue();
    await world.subscribe({ url: receiver.url, event_types: ['payment.received'] });
    const agent = await world.agent({ per_tx_limit: 500, daily_limit: 1_000, hourly_tx_cap: 20 }, 100);
    const destination = await world.agent({}, 0);
    // A venue position (redeemed by the drain) and a pool's output (SOL): both reach the receiving agent.
    const swap = await takePositions(agent, venue, { deposit: 40, swap: 30 });
    const sol = Number(swap.received_amount);

    const drained = await emergency(agent.id, { destination: destination.id });
    expect(drained.status).toBe(200);
    expect((await heldBy(destination.id)).USDC).toBe(70_000_000n);

    // What the receiving agent reads follows the chain: 40 redeemed + 30 left = 70 USDC, and the SOL.
    const balances = async () =>
      (
        await world.client.call<{ balances: Record<string, number> }>('GET', '/api/v1/balance', {
          token: destination.key,
        })
      ).body.balances;
    const until = Date.now() + 10_000;
    while (Date.now() < until && (await balances()).USDC !== 70)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await balances()).toEqual(expect.objectContaining({ USDC: 70, SOL: sol, kUSDC: 0 }));

    // The receiving agent's log has it as payments from the drained agent, one per token, in the drain's transaction.
    const payments = (await world.service.ctx.store.readStream(streams.payments(destination.id))).map(
      (e) => ({
        type: e.type,
        ...(e.data as { mint: string; amount: string; from: string; tx_signature: string }),
      }),
    );
    const drainSig = (drained.body.moved as { tx_sig: string }[])[0]!.tx_sig;
    expect(payments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'payment.received',
          mint: mintOf('USDC'),
          amount: '70',
          from: agent.id,
          tx_signature: drainSig,
        }),
        expect.objectContaining({
          type: 'payment.received',
          mint: mintOf('SOL'),
          from: agent.id,
          tx_signature: drainSig,
        }),
      ]),
    );
    expect(payments).toHaveLength(2);

    // The operator's reconciliation of the group finds nothing.
    const reconciled = await world.client.call<{ discrepancies: unknown[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${world.groupId}/reconciliation`,
      { token: world.operator.token },
    );
    expect(reconciled.status).toBe(200);
    expect(reconciled.body.discrepancies).toEqual([]);

    // The fleet's webhook hears of it as a payment into the receiving agent.
    const heard = () =>
      receiver.requests
        .map((r) => JSON.parse(r.body) as Record<string, unknown>)
        .filter((b) => b.event === 'payment.received' && b.agent_wallet_pda === destination.id);
    const waitUntil = Date.now() + 10_000;
    while (Date.now() < waitUntil && heard().length < 2)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ amount: 70, from: agent.id, tx_signature: drainSig }),
        expect.objectContaining({ amount: sol, from: agent.id, tx_signature: drainSig }),
      ]),
    );

    // Again: nothing moves, nothing is credited twice.
    expect((await emergency(agent.id, { destination: destination.id })).body.moved).toEqual([]);
    expect(await world.service.ctx.store.readStream(streams.payments(destination.id))).toHaveLength(2);
  });
});
