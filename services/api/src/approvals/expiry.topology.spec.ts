/**
 * A held spend expires with its executor down, on the server topology: the expiry is the delivery
 * worker's scheduler and the API's, not the executor's, so the agent's retry answers approval_expired
 * and the daily limit is given back while no executor runs; the executor, started again, executes
 * nothing of it.
 */
import { key, startWorld, until, type World } from '@tokenops/testing/harness';
import { Topology, type Proc } from '@tokenops/testing/topology';
import { info } from '@tokenops/testing/transfers';

jest.setTimeout(180_000);

describe('a held spend expiring while its executor is down', () => {
  let topology: Topology;
  let world: World;
  let executor: Proc;

  beforeAll(async () => {
    topology = await new Topology({ apis: 1, executors: 1, projectors: 1, deliveries: 1 }).start();
    executor = topology.byRole('executor')[0]!;
    world = await startWorld({}, info(topology));
  });
  afterAll(async () => {
    await world?.close();
    await topology?.destroy();
  });

  it('expires on time, releases the reservation, and is never executed', async () => {
    const operator = { token: world.operator.token };
    await world.client.call('PUT', `/api/v1/orchestrator/groups/${world.groupId}/approval-policy`, {
      ...operator,
      body: { threshold: '50', ttl_seconds: 2 },
    });
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 10 });
    const k = key();
    const send = () =>
      world.client.call<{ error?: string; message?: string; status?: string }>('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: world.vendor, amount: 80, idempotency_key: k },
      });
    const held = await send();
    expect(held.body.error).toBe('approval_required');
    const id = /approval (\S+) until/.exec(held.body.message!)![1]!;
    await executor.kill('SIGKILL');

    const expired = await until(async () => {
      const r = await world.client.call<{ status: string }>(
        'GET',
        `/api/v1/orchestrator/approvals/${id}`,
        operator,
      );
      return r.body.status === 'expired';
    });
    expect(expired).toBe(true);
    const limits = () =>
      world.client.call<{ daily_remaining: number }>('GET', '/api/v1/limits', { token: agent.key });
    expect(await until(async () => (await limits()).body.daily_remaining === 100 && true)).toBe(true);
    expect((await send()).body.error).toBe('approval_expired');

    await executor.start().ready(120_000);
    const intentId = id.slice(id.lastIndexOf('_') + 1);
    // The relay hands the decided approval on; the executor finds the intent failed and sends nothing.
    await new Promise((r) => setTimeout(r, 2_000));
    const story = await world.client.call<{ events: { type: string }[]; outcome: string }>(
      'GET',
      `/api/v1/audit/intents/${intentId}`,
      operator,
    );
    expect(story.body.outcome).toBe('failed');
    expect(story.body.events.map((e) => e.type)).not.toContain('intent.submitting');
    expect(story.body.events.map((e) => e.type)).toContain('approval.decided');
  });
});
