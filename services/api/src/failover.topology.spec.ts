/**
 * Fail-over in seconds, on the server topology (separate processes, killed with -9): the work a dead
 * process held is taken over within 10 s of its death (docs/operations.md), measured from the kill.
 *   - An executor that sent transactions and had not heard back (jobs in hand): every transfer is
 *     confirmed within 10 s, none lost, none paid twice.
 *   - The executor holding the relay's and the payment watcher's leases: another takes both, and a
 *     transfer sent after the kill is confirmed, within 10 s.
 *   - The projector holding the views' lease: the standby takes it, and a write made after the kill
 *     shows in the views, within 10 s.
 * The executor under test runs with the longest job lock EXECUTOR_LOCK_MS allows (5 s); the leases
 * with theirs (5 s).
 * And a spend held for approval expires with every executor down: the expiry is the delivery worker's
 * scheduler and the API's, not an executor's, so the agent's retry answers approval_expired and the
 * daily limit is given back while none runs; an executor started again executes nothing of it (on
 * this suite's topology, whose executors it may kill, not on the one the other suites share).
 */
import Redis from 'ioredis';
import { TAKEOVER } from '@tokenops/shared/process';
import { approvalIdIn, key, startWorld, until, type World } from '@tokenops/testing/harness';
import { TcpProxy } from '@tokenops/testing/tcp-proxy';
import { Topology, type Proc } from '@tokenops/testing/topology';
import { burst, expectPaidOnce, info, usdcOf } from '@tokenops/testing/transfers';
import { setTimeout as sleep } from 'node:timers/promises';

jest.setTimeout(180_000);

const LIMITS = { per_tx_limit: 100, daily_limit: 100_000, hourly_tx_cap: 1_000 };
const BOUND_MS = TAKEOVER.boundMs;

/** Kills `proc` with -9; the time of the kill. */
async function kill(proc: Proc): Promise<number> {
  const at = Date.now();
  await proc.kill('SIGKILL');
  return at;
}

/** Polls `check` until it holds, for at most `ms`; whether it held. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + ms; ; await sleep(50)) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
  }
}

describe('work a process killed with -9 held is taken over within 10 s', () => {
  let topology: Topology;
  let world: World;
  let redis: Redis;
  let chainProxy: TcpProxy;
  let relayHolder: Proc;
  let activeProjector: Proc;

  beforeAll(async () => {
    // Alone at start, the first executor and the first projector take every lease; the others
    // join as standbys. The executor holding the relay works one job at a time, so the one under
    // test below takes most of a burst.
    topology = new Topology({
      apis: 1,
      executors: 1,
      projectors: 1,
      deliveries: 1, // its scheduler expires held spends
      env: { RATE_LIMIT_PER_MINUTE: '100000', EXECUTOR_CONCURRENCY: '1' },
    });
    await topology.start(); // assigned first, so that afterAll stops whatever started

    [relayHolder] = topology.byRole('executor') as [Proc];
    [activeProjector] = topology.byRole('projector') as [Proc];
    chainProxy = await TcpProxy.open(topology.env.SOLANA_RPC_URL!);
    await Promise.all([
      topology.add('projector'),
      // Reaches the chain through the proxy, which the first test makes withhold answers.
      topology.add('executor', {
        SOLANA_RPC_URL: chainProxy.url(topology.env.SOLANA_RPC_URL!),
        EXECUTOR_CONCURRENCY: '16',
        // The longest job lock allowed: the bound holds for it, so for every shorter one.
        EXECUTOR_LOCK_MS: String(TAKEOVER.maxJobLockMs),
      }),
    ]);
    world = await startWorld({}, info(topology));
    redis = new Redis(topology.env.REDIS_URL!);
  });
  afterAll(async () => {
    redis?.disconnect();
    await chainProxy?.cut();
    await world?.close();
    await topology?.destroy();
  });

  it('an executor killed with transfers sent but not heard back: each confirmed once, within 10 s of the kill', async () => {
    const senders = await Promise.all(Array.from({ length: 3 }, () => world.agent(LIMITS, 100)));
    const payee = await world.agent({}, 0);
    const before = await usdcOf(world, payee.id);
    const victim = topology.byRole('executor')[1]!;
    // The chain takes the victim's transactions; the victim never hears that they landed.
    chainProxy.withholdAnswersAfter('"sendTransaction"');
    const transfers = burst(senders, payee.id, 3);
    const answers = Promise.all(
      transfers.map(async (t) => {
        const reply = await world.client
          .call('POST', '/api/v1/transfer', { token: t.token, body: t.body })
          .catch(() => undefined);
        return { reply, at: Date.now() };
      }),
    );
    expect(await within(30_000, async () => chainProxy.withheld > 0)).toBe(true);
    await sleep(300); // it takes what else of the burst it will
    const killedAt = await kill(victim);
    const held = chainProxy.withheld;

    const replies = await answers;
    const late = replies.filter((r) => r.at - killedAt > BOUND_MS).map((r) => r.at - killedAt);
    expect(late).toEqual([]);
    expect(replies.map((r) => r.reply?.body.status)).toEqual(transfers.map(() => 'confirmed'));
    expect(held).toBeGreaterThan(0);
    await expectPaidOnce(
      world,
      replies.map((r) => r.reply!),
      payee.id,
      before,
    );
  });

  it('the executor holding the relay and payment watcher leases: another takes both, and a transfer sent after the kill confirms, within 10 s', async () => {
    await topology.add('executor'); // a standby on the chain itself
    const sender = await world.agent(LIMITS, 100);
    const payee = await world.agent({}, 0);
    const leases = [`${topology.prefix}:executor-relay:lease`, `${topology.prefix}:payment-watcher:lease`];
    const holders = await Promise.all(leases.map((k) => redis.get(k)));
    expect(holders.every((h) => h !== null)).toBe(true);

    const killedAt = await kill(relayHolder);
    const [t] = burst([sender], payee.id, 1);
    const reply = await world.client.call('POST', '/api/v1/transfer', { token: t!.token, body: t!.body });
    expect(reply.body.status).toBe('confirmed');
    expect(Date.now() - killedAt).toBeLessThanOrEqual(BOUND_MS);
    // Both leases have a new holder (a dead holder's lease runs out; a standby takes it).
    const taken = await within(killedAt + BOUND_MS - Date.now(), async () => {
      const now = await Promise.all(leases.map((k) => redis.get(k)));
      return now.every((h, i) => h !== null && h !== holders[i]);
    });
    expect(taken).toBe(true);
  });

  it('the projector holding the views lease: the standby takes it, and a write after the kill shows in the views, within 10 s', async () => {
    const sender = await world.agent(LIMITS, 100);
    const payee = await world.agent({}, 0);
    const lease = `${topology.prefix}:views:lease`;
    const holder = await redis.get(lease);
    expect(holder).not.toBeNull();

    const killedAt = await kill(activeProjector);
    const [t] = burst([sender], payee.id, 1);
    const reply = await world.client.call('POST', '/api/v1/transfer', { token: t!.token, body: t!.body });
    expect(reply.body.status).toBe('confirmed');
    const shown = await within(killedAt + BOUND_MS - Date.now(), async () => {
      const history = await world.client.call<{ transactions: { tx_sig?: string }[] }>(
        'GET',
        '/api/v1/history',
        { token: sender.key },
      );
      return history.body.transactions.some((x) => x.tx_sig === reply.body.tx_sig);
    });
    expect(shown).toBe(true);
    expect(await redis.get(lease)).not.toBe(holder);
  });

  it('a spend held for approval expires on time with every executor down, gives the limit back, and is never executed', async () => {
    const operator = { token: world.operator.token };
    const policy = await world.client.call(
      'PUT',
      `/api/v1/orchestrator/groups/${world.groupId}/approval-policy`,
      {
        ...operator,
        body: { threshold: '50', ttl_seconds: 2 },
      },
    );
    expect(policy.status).toBe(200);
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 10 });
    const k = key();
    const send = () =>
      world.client.call<{ error?: string; message?: string; status?: string }>('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: world.vendor, amount: 80, idempotency_key: k },
      });
    const held = await send();
    expect(held.body.error).toBe('approval_required');
    const id = approvalIdIn(held.body.message);
    const executors = topology.byRole('executor');
    await Promise.all(executors.map((e) => e.kill('SIGKILL')));

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

    await executors.at(-1)!.start().ready(120_000);
    const intentId = id.slice(id.lastIndexOf('_') + 1);
    // The relay hands the decided approval on; the executor finds the intent failed and sends nothing.
    await sleep(2_000);
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
