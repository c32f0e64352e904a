/**
 * A failure at any step of the spend path leaves nothing claimed: no budget reservation, no
 * idempotency key, no counted limit. Each step's write fails once (a fault injected at the
 * store's append or the chain adapter, on the embedded service); afterwards the recipient's
 * budget, exactly one transfer's worth, is whole again, so a reservation left behind would fail the
 * test.
 */
import { ChainFailure, type SignedTransaction } from '@tokenops/shared';
import { generateSigner } from '@tokenops/shared';
import { embeddedSuite, key } from '@tokenops/testing/harness';
import { aroundAppends } from '@tokenops/testing/appends';

const { world, ctx } = embeddedSuite();

/** A recipient allow-listed with a budget of exactly 10. */
async function vendorOf10(): Promise<string> {
  const vendor = generateSigner().address;
  await world().allow({
    address: vendor,
    type: 1,
    label: 'ten',
    approved_amount: 10,
    ttl_seconds: 86_400,
  });
  return vendor;
}

/**
 * Makes the store's next append holding an event of `type` fail (once) with an error that is not a
 * conflict: a plain append (the key's claim) or an atomic one (the reservation with the acceptance).
 */
function failNextAppend(type: string, options: { afterLanding?: boolean } = {}) {
  let armed = true;
  const restore = aroundAppends(ctx().store, async (events, land) => {
    const fail = armed && events.some((e) => e.type === type);
    if (fail) armed = false;
    if (fail && !options.afterLanding) throw new Error(`injected fault appending ${type}`);
    const result = await land();
    if (fail) throw new Error(`injected fault: ${type} landed, its answer lost`);
    return result;
  });
  return {
    /** Whether the fault was met. */
    met: () => !armed,
    restore,
  };
}

const limits = { per_tx_limit: 10, daily_limit: 100, hourly_tx_cap: 10 };

async function expectWholeAgain(agent: { key: string }, vendor: string, request: Record<string, unknown>) {
  const view = await world().client.call('GET', '/api/v1/limits', { token: agent.key });
  expect(view.body).toEqual(expect.objectContaining({ daily_remaining: 100, hourly_tx_remaining: 10 }));
  // The same request (same key) goes through, spending the whole budget: nothing was left reserved.
  const retried = await world().client.call('POST', '/api/v1/transfer', { token: agent.key, body: request });
  expect(retried.status).toBe(200);
  expect(retried.body.status).toBe('confirmed');
  const chain = ctx().chain;
  const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!;
  expect((await chain.balances(vendor)).get(usdc.mint)).toBe(9_990_000n);
}

/**
 * The store as EventStoreDB's adapter is, with no atomic append: the reservation and the acceptance go
 * in turn, and a reservation whose acceptance failed is released (the pipeline asks the store each time).
 */
function withoutAtomicAppends(): () => void {
  const store = ctx().store as { appendAtomically?: unknown };
  const atomically = store.appendAtomically;
  delete store.appendAtomically;
  return () => {
    store.appendAtomically = atomically;
  };
}

describe.each([
  ['in one atomic append (PostgreSQL, PGlite)', false],
  ['in turn (as on EventStoreDB)', true],
])('a failure between reserving and accepting, %s', (_how, inTurn) => {
  let restore: (() => void) | undefined;
  beforeEach(() => {
    restore = inTurn ? withoutAtomicAppends() : undefined;
  });
  afterEach(() => restore?.());

  for (const [step, type] of [
    ['claiming the key', 'idempotency.claimed'],
    ['reserving the budget', 'budget.reserved'],
    ['accepting the intent', 'intent.accepted'],
  ] as const) {
    it(`at ${step}: the request fails, the budget, the key and the limits stay whole`, async () => {
      const vendor = await vendorOf10();
      const agent = await world().agent(limits, 100);
      const request = { to: vendor, amount: 10, idempotency_key: key() };
      const fault = failNextAppend(type);
      const failed = await world().client.call('POST', '/api/v1/transfer', {
        token: agent.key,
        body: request,
      });
      expect(failed.status).toBe(500);
      expect(failed.body.error).toBe('internal_error');
      expect(fault.met()).toBe(true);
      fault.restore();
      await expectWholeAgain(agent, vendor, request);
    });
  }
});

describe('an acceptance that landed though its append failed on the way back', () => {
  it('keeps the key claimed: the same request answers that one transfer, nothing is decided twice', async () => {
    const vendor = await vendorOf10();
    const agent = await world().agent(limits, 100);
    const request = { to: vendor, amount: 10, idempotency_key: key() };
    const fault = failNextAppend('intent.accepted', { afterLanding: true });
    const failed = await world().client.call('POST', '/api/v1/transfer', { token: agent.key, body: request });
    expect(failed.status).toBe(500);
    expect(fault.met()).toBe(true);
    fault.restore();
    // Had the key been let go, this would be a second intent, refused for the budget the first holds.
    const retried = await world().client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: request,
    });
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('confirmed');
    const usdc = ctx().chain.tokens.find((t) => t.symbol === 'USDC')!;
    expect((await ctx().chain.balances(vendor)).get(usdc.mint)).toBe(9_990_000n);
    const view = await world().client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(view.body).toEqual(expect.objectContaining({ daily_remaining: 90, hourly_tx_remaining: 9 }));
  });
});

describe('a failure in the executor', () => {
  it('recording the submission fails once: the job runs again and the transfer confirms once', async () => {
    const vendor = await vendorOf10();
    const agent = await world().agent(limits, 100);
    const fault = failNextAppend('intent.submitting');
    const reply = await world().client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(reply.status).toBe(200);
    expect(fault.met()).toBe(true);
    const usdc = ctx().chain.tokens.find((t) => t.symbol === 'USDC')!;
    expect((await ctx().chain.balances(vendor)).get(usdc.mint)).toBe(9_990_000n);
  });

  it('the chain cannot be reached once: the job sends again and the transfer confirms once', async () => {
    const vendor = await vendorOf10();
    const agent = await world().agent(limits, 100);
    const chain = ctx().chain;
    const submit = chain.submit.bind(chain);
    let armed = true;
    jest.spyOn(chain, 'submit').mockImplementation(async (tx: SignedTransaction) => {
      if (armed) {
        armed = false;
        throw Object.assign(new Error('connect ECONNREFUSED (injected)'), { code: 'ECONNREFUSED' });
      }
      return submit(tx);
    });
    const reply = await world().client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(reply.status).toBe(200);
    const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!;
    expect((await chain.balances(vendor)).get(usdc.mint)).toBe(9_990_000n);
  });

  it('the node moved past the blockhash it was signed on: signed anew at once, the transfer confirms once', async () => {
    const vendor = await vendorOf10();
    const agent = await world().agent(limits, 100);
    const chain = ctx().chain;
    const submit = chain.submit.bind(chain);
    const sent: string[] = [];
    jest.spyOn(chain, 'submit').mockImplementation(async (tx: SignedTransaction) => {
      sent.push(tx.signature);
      // The node refuses the first bytes without running them, as after a blockhash rotation.
      if (sent.length === 1) throw new ChainFailure('BlockhashNotFound');
      return submit(tx);
    });
    const reply = await world().client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('confirmed');
    // Sent twice (here on the same blockhash, which this fault leaves as it was: the same bytes).
    expect(sent).toHaveLength(2);
    expect(reply.body.tx_sig).toBe(sent[1]);
    const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!;
    expect((await chain.balances(vendor)).get(usdc.mint)).toBe(9_990_000n);
  });

  it('the chain refuses the transaction: the intent fails and its reservation is released', async () => {
    const vendor = await vendorOf10();
    const [first, second] = [await world().agent(limits, 100), await world().agent(limits, 100)];
    const chain = ctx().chain;
    const submit = chain.submit.bind(chain);
    let armed = true;
    jest.spyOn(chain, 'submit').mockImplementation(async (tx: SignedTransaction) => {
      if (armed) {
        armed = false;
        throw new ChainFailure('instruction 2: custom program error: 0x4');
      }
      return submit(tx);
    });
    const refused = await world().client.call('POST', '/api/v1/transfer', {
      token: first!.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    // The whole budget is there for the group's next agent.
    const next = await world().client.call('POST', '/api/v1/transfer', {
      token: second!.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(next.status).toBe(200);
  });
});
