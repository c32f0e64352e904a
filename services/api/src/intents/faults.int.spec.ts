/**
 * A failure at any step of the spend path leaves nothing claimed: no budget reservation, no
 * idempotency key, no counted limit. Each step's write fails once (a fault injected at the
 * repository's append or the chain adapter, on the embedded service); afterwards the recipient's
 * budget, exactly one transfer's worth, is whole again, so a reservation left behind would fail the
 * test.
 */
import {
  ChainFailure,
  type Context,
  type NewEvent,
  type Repository,
  type SignedTransaction,
} from '@tokenops/shared';
import { generateSigner } from '@tokenops/shared';
import { key, startWorld, type World } from '@tokenops/testing/harness';

let world: World;
beforeAll(async () => {
  world = await startWorld({}, undefined);
});
afterAll(async () => world.close());
afterEach(() => jest.restoreAllMocks());

/** The embedded service's whole context (this suite never runs on the topology). */
const ctx = () => world.service.ctx as Context;

/** A recipient allow-listed with a budget of exactly 10. */
async function vendorOf10(): Promise<string> {
  const vendor = generateSigner().address;
  const added = await world.client.call('POST', `/api/v1/orchestrator/groups/${world.groupId}/whitelist`, {
    token: world.operator.token,
    body: { address: vendor, type: 1, label: 'ten', approved_amount: 10, ttl_seconds: 86_400 },
  });
  expect(added.status).toBe(201);
  return vendor;
}

/** Makes the repository's next append of an event of `type` fail (once) with an error that is not a conflict. */
function failNextAppend(repository: Repository<never, never>, type: string) {
  const original = repository.append.bind(repository);
  let armed = true;
  return jest
    .spyOn(repository, 'append')
    .mockImplementation(async (stream: string, loaded, events: readonly { type: string }[], metadata) => {
      if (armed && events.some((e) => e.type === type)) {
        armed = false;
        throw new Error(`injected fault appending ${type}`);
      }
      return original(stream, loaded, events as never, metadata as NewEvent['metadata']);
    });
}

const limits = { per_tx_limit: 10, daily_limit: 100, hourly_tx_cap: 10 };

async function expectWholeAgain(agent: { key: string }, vendor: string, request: Record<string, unknown>) {
  const view = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
  expect(view.body).toEqual(expect.objectContaining({ daily_remaining: 100, hourly_tx_remaining: 10 }));
  // The same request (same key) goes through, spending the whole budget: nothing was left reserved.
  const retried = await world.client.call('POST', '/api/v1/transfer', { token: agent.key, body: request });
  expect(retried.status).toBe(200);
  expect(retried.body.status).toBe('confirmed');
  const chain = ctx().chain;
  const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!;
  expect((await chain.balances(vendor)).get(usdc.mint)).toBe(9_990_000n);
}

describe('a failure between reserving and accepting', () => {
  for (const [step, repository, type] of [
    ['claiming the key', () => ctx().idempotency, 'idempotency.claimed'],
    ['reserving the budget', () => ctx().budgets, 'budget.reserved'],
    ['accepting the intent', () => ctx().agents, 'intent.accepted'],
  ] as const) {
    it(`at ${step}: the request fails, the budget, the key and the limits stay whole`, async () => {
      const vendor = await vendorOf10();
      const agent = await world.agent(limits, 100);
      const request = { to: vendor, amount: 10, idempotency_key: key() };
      const fault = failNextAppend(repository() as unknown as Repository<never, never>, type);
      const failed = await world.client.call('POST', '/api/v1/transfer', { token: agent.key, body: request });
      expect(failed.status).toBe(500);
      expect(failed.body.error).toBe('internal_error');
      expect(fault).toHaveBeenCalled();
      fault.mockRestore();
      await expectWholeAgain(agent, vendor, request);
    });
  }
});

describe('a failure in the executor', () => {
  it('recording the submission fails once: the job runs again and the transfer confirms once', async () => {
    const vendor = await vendorOf10();
    const agent = await world.agent(limits, 100);
    failNextAppend(ctx().agents as unknown as Repository<never, never>, 'intent.submitting');
    const reply = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(reply.status).toBe(200);
    const usdc = ctx().chain.tokens.find((t) => t.symbol === 'USDC')!;
    expect((await ctx().chain.balances(vendor)).get(usdc.mint)).toBe(9_990_000n);
  });

  it('the chain cannot be reached once: the job sends again and the transfer confirms once', async () => {
    const vendor = await vendorOf10();
    const agent = await world.agent(limits, 100);
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
    const reply = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(reply.status).toBe(200);
    const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!;
    expect((await chain.balances(vendor)).get(usdc.mint)).toBe(9_990_000n);
  });

  it('the node moved past the blockhash it was signed on: signed anew at once, the transfer confirms once', async () => {
    const vendor = await vendorOf10();
    const agent = await world.agent(limits, 100);
    const chain = ctx().chain;
    const submit = chain.submit.bind(chain);
    const sent: string[] = [];
    jest.spyOn(chain, 'submit').mockImplementation(async (tx: SignedTransaction) => {
      sent.push(tx.signature);
      // The node refuses the first bytes without running them, as after a blockhash rotation.
      if (sent.length === 1) throw new ChainFailure('BlockhashNotFound');
      return submit(tx);
    });
    const reply = await world.client.call('POST', '/api/v1/transfer', {
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
    const [first, second] = [await world.agent(limits, 100), await world.agent(limits, 100)];
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
    const refused = await world.client.call('POST', '/api/v1/transfer', {
      token: first!.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    // The whole budget is there for the group's next agent.
    const next = await world.client.call('POST', '/api/v1/transfer', {
      token: second!.key,
      body: { to: vendor, amount: 10, idempotency_key: key() },
    });
    expect(next.status).toBe(200);
  });
});
