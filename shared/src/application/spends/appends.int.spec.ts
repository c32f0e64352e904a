/**
 * What a spend appends, and together with what. The idempotency key is claimed in the decision's own
 * append when the operation asks nothing outside (a transfer in the base token), in an append of its
 * own before the ask otherwise (a swap, which quotes): spends/pipeline.ts. A budgeted recipient's
 * reservation goes with the acceptance, its settlement with the outcome (application/settle.ts). What
 * the store is asked is counted on the embedded service; a duplicate racing on another API instance
 * is the concurrency suite's (concurrency.e2e.spec.ts, on the topology too).
 */
import { streams } from '@tokenops/shared';
import { embeddedSuite, key } from '@tokenops/testing/harness';
import { aroundAppends } from '@tokenops/testing/appends';

const { world, ctx } = embeddedSuite();

/** Each append the store is asked for from now on, as the event types it holds (atomic ones flattened). */
function appendsSeen(): string[][] {
  const seen: string[][] = [];
  aroundAppends(ctx().store, (events, land) => {
    seen.push(events.map((e) => e.type));
    return land();
  });
  return seen;
}

const holding = (seen: string[][], type: string) => seen.filter((types) => types.includes(type));

describe('a transfer in the base token', () => {
  it('claims its key in the append that accepts it: one append, not two, before the executor runs', async () => {
    const agent = await world().agent({}, 100);
    const peer = await world().agent({}, 0);
    const seen = appendsSeen();
    const body = { to: peer.id, amount: 2, idempotency_key: key() };
    const first = await world().client.call('POST', '/api/v1/transfer', { token: agent.key, body });
    expect(first.status).toBe(200);
    expect(holding(seen, 'idempotency.claimed')).toEqual([['idempotency.claimed', 'intent.accepted']]);
    // The same request again: the key answers it, nothing is decided a second time.
    const again = await world().client.call('POST', '/api/v1/transfer', { token: agent.key, body });
    expect(again).toEqual(expect.objectContaining({ status: 200, body: first.body }));
    expect(holding(seen, 'intent.accepted')).toHaveLength(1);
  });

  it("to a budgeted recipient: the key's claim, the budget's reservation and the acceptance in one append; its settlement and the outcome in another", async () => {
    const agent = await world().agent({}, 100);
    const seen = appendsSeen();
    const res = await world().client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: world().vendor, amount: 2, idempotency_key: key() },
    });
    expect(res.status).toBe(200);
    expect(holding(seen, 'idempotency.claimed')).toEqual([
      ['budget.reserved', 'idempotency.claimed', 'intent.accepted'],
    ]);
    expect(holding(seen, 'intent.confirmed')).toEqual([['budget.consumed', 'intent.confirmed']]);
  });

  it('refused before the decision: the claim and the refusal in one append, replayed to a retry', async () => {
    const agent = await world().agent({}, 100);
    const seen = appendsSeen();
    // Base58 of the right length, but not 32 bytes: the ask refuses it, before any decision.
    const body = { to: 'z'.repeat(44), amount: 2, idempotency_key: key() };
    const first = await world().client.call('POST', '/api/v1/transfer', { token: agent.key, body });
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('recipient_invalid');
    expect(holding(seen, 'idempotency.claimed')).toEqual([['idempotency.claimed', 'idempotency.completed']]);
    const again = await world().client.call('POST', '/api/v1/transfer', { token: agent.key, body });
    expect(again).toEqual(expect.objectContaining({ status: 400, body: first.body }));
    expect(seen).toHaveLength(1);
    const recorded = await ctx().store.readStream(streams.idempotency(agent.id, body.idempotency_key));
    expect(recorded.map((e) => e.type)).toEqual(['idempotency.claimed', 'idempotency.completed']);
  });

  it('the same key with another body is refused, the first transfer alone moves funds', async () => {
    const agent = await world().agent({}, 100);
    const idempotency_key = key();
    const first = await world().client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: world().vendor, amount: 2, idempotency_key },
    });
    expect(first.status).toBe(200);
    // Another process knows nothing of the key: it decides and appends, and the key's stream refuses it.
    ctx().idempotency.forget(streams.idempotency(agent.id, idempotency_key));
    const reused = await world().client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: world().vendor, amount: 3, idempotency_key },
    });
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('idempotency_key_reused');
    const usdc = ctx().chain.tokens[0]!.mint;
    expect((await ctx().chain.balances(agent.id)).get(usdc)).toBe(98_000_000n);
  });
});

describe('a swap, whose ask quotes', () => {
  it('claims its key in an append of its own before the decision', async () => {
    const agent = await world().agent({}, 100);
    const tokens = ctx().chain.tokens;
    const usdc = tokens.find((t) => t.symbol === 'USDC')!;
    const sol = tokens.find((t) => t.symbol === 'SOL')!;
    const seen = appendsSeen();
    const res = await world().client.call('POST', '/api/v1/swap', {
      token: agent.key,
      body: {
        from_token: 'USDC',
        to_token: 'SOL',
        from_mint: usdc.mint,
        to_mint: sol.mint,
        amount: 1,
        idempotency_key: key(),
      },
    });
    expect(res.status).toBe(200);
    expect(holding(seen, 'idempotency.claimed')).toEqual([['idempotency.claimed']]);
    expect(holding(seen, 'intent.accepted')).toHaveLength(1);
  });
});
