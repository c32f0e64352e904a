/**
 * A transfer whose decision keeps meeting other instances' writes to the agent's stream. Other
 * instances are stood in for by a fault at the decision's append (every append to an agent stream
 * conflicts: on PGlite the atomic one that holds the budget's reservation too), on the embedded service; the conflicts themselves are exercised for real by the
 * concurrency suite on the server topology.
 */
import { CONFLICT_PATIENCE_MS, WrongExpectedRevision } from '@tokenops/shared';
import { embeddedSuite, key } from '@tokenops/testing/harness';

// The vendor's budget is exactly one transfer of 10: a reservation left behind would block the retry.
const { world, ctx } = embeddedSuite({ vendorBudget: 10 });

describe('a decision that keeps conflicting', () => {
  it('gives up with 503 and nothing done; the same request then goes through', async () => {
    const agent = await world().agent({ per_tx_limit: 10, daily_limit: 100, hourly_tx_cap: 10 }, 100);
    const request = { to: world().vendor, amount: 10, idempotency_key: key() };
    // The decision's append to the agent's stream: atomic with the budget's on PGlite, alone elsewhere.
    const store = ctx().store;
    const conflicts = store.appendAtomically
      ? jest.spyOn(store, 'appendAtomically').mockImplementation(async (appends) => {
          throw new WrongExpectedRevision(appends.at(-1)!.stream, 0n, 1n);
        })
      : jest.spyOn(ctx().agents, 'append').mockImplementation(async (stream: string) => {
          throw new WrongExpectedRevision(stream, 0n, 1n);
        });

    const started = Date.now();
    const gaveUp = await world().client.call('POST', '/api/v1/transfer', { token: agent.key, body: request });
    expect(gaveUp.status).toBe(503);
    expect(gaveUp.body.error).toBe('service_unavailable');
    expect(gaveUp.headers.get('retry-after')).toBe('1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(CONFLICT_PATIENCE_MS);
    expect(conflicts.mock.calls.length).toBeGreaterThan(1);
    conflicts.mockRestore();

    const limits = await world().client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(limits.body).toEqual(expect.objectContaining({ daily_remaining: 100, hourly_tx_remaining: 10 }));

    // The key was freed and the budget reservation released: the same request confirms.
    const retried = await world().client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: request,
    });
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('confirmed');
  });
});
