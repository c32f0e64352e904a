/**
 * Faults on the server topology, as separate processes on real servers: an executor killed (-9) in the
 * middle of a burst, an API instance killed while it waits for outcomes, the projector killed during
 * a replay and a replay killed half-way, an API instance stopped (SIGTERM) with a console's event
 * stream open, then Redis and PostgreSQL restarted under load. After each,
 * with the processes started again: no intent is lost, none reaches the chain twice (exact balances,
 * one outcome per intent), and the read models equal a full replay of the log.
 */
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';
import Redis from 'ioredis';
import { generateSigner } from '@tokenops/shared';
import { ViewGenerations } from '@tokenops/projections';
import {
  Client,
  startWorld,
  type ProposalReply,
  type Reply,
  type World,
  enact,
} from '@tokenops/testing/harness';
import { privatePostgres, privateRedis, type PrivateServer } from '@tokenops/testing/private-servers';
import { Topology } from '@tokenops/testing/topology';
import {
  burst,
  expectModelsEqualReplay,
  expectPaidOnce,
  info,
  outcomes,
  settleAll,
  usdcOf,
  type Transfer,
} from '@tokenops/testing/transfers';
import { setTimeout as sleep } from 'node:timers/promises';

jest.setTimeout(240_000);

const LIMITS = { per_tx_limit: 100, daily_limit: 100_000, hourly_tx_cap: 1_000 };
/** The stack under fault: two of each but the projector; a dead executor's jobs move after 2 s. */
const STACK = {
  apis: 2,
  executors: 2,
  projectors: 1,
  env: { EXECUTOR_LOCK_MS: '2000', RATE_LIMIT_PER_MINUTE: '100000' },
};

describe('processes killed on the server topology', () => {
  let topology: Topology;
  let world: World;

  beforeAll(async () => {
    topology = await new Topology(STACK).start();
    world = await startWorld({}, info(topology));
  });
  afterAll(async () => {
    await world?.close();
    await topology?.destroy();
  });

  it('an executor killed in the middle of a burst: every transfer lands once', async () => {
    const senders = await Promise.all(Array.from({ length: 4 }, () => world.agent(LIMITS, 1_000)));
    const payee = await world.agent({}, 0);
    const before = await usdcOf(world, payee.id);
    const transfers = burst(senders, payee.id, 30);
    const first = Promise.all(
      transfers.map((t) =>
        world.client
          .call('POST', '/api/v1/transfer', { token: t.token, body: t.body })
          .catch(() => undefined),
      ),
    );
    // Kill one executor once some of the burst has settled, but not all of it.
    for (let i = 0; i < 400 && (await outcomes(world)).confirmed.size < 5; i++) await sleep(25);
    const [victim] = topology.byRole('executor');
    await victim!.kill('SIGKILL');
    const settledAtKill = (await outcomes(world)).confirmed.size;
    expect(settledAtKill).toBeLessThan(transfers.length);
    await first;
    await victim!.restart();

    const answers = await settleAll(world.client, transfers);
    await expectPaidOnce(world, answers, payee.id, before);
    for (const s of senders) expect(await usdcOf(world, s.id)).toBe(970_000_000n);
    await expectModelsEqualReplay(topology);
  });

  it('an API instance killed while it waits for outcomes: a retry on another gets the one answer', async () => {
    const sender = await world.agent(LIMITS, 1_000);
    const payee = await world.agent({}, 0);
    const before = await usdcOf(world, payee.id);
    const transfers = burst([sender], payee.id, 20);
    const [victim, survivor] = topology.apis;
    const doomed = new Client(victim!.url);
    const inFlight = Promise.all(
      transfers.map((t) =>
        doomed.call('POST', '/api/v1/transfer', { token: t.token, body: t.body }).then(
          (r) => r.status,
          () => 'cut',
        ),
      ),
    );
    // Wait until the instance has accepted some intents (it now waits on their outcomes), then kill it.
    for (let i = 0; i < 400; i++) {
      const all = await world.log();
      if (
        all.some(
          (e) => e.type === 'intent.accepted' && (e.data as { agent_id: string }).agent_id === sender.id,
        )
      )
        break;
      await sleep(10);
    }
    await victim!.kill('SIGKILL');
    const statuses = await inFlight;
    expect(statuses).toContain('cut');
    await victim!.restart();

    const answers = await settleAll(new Client(survivor!.url), transfers);
    await expectPaidOnce(world, answers, payee.id, before);
    expect(await usdcOf(world, sender.id)).toBe(980_000_000n);
    await expectModelsEqualReplay(topology);
  });

  it('the projector killed during a replay, and a replay killed half-way: the next replay switches over and checks equal', async () => {
    const sender = await world.agent(LIMITS, 1_000);
    const payee = await world.agent({}, 0);
    // A longer log, so the replays take a while: payments into a wallet, straight into the log.
    const wallet = generateSigner().address;
    const mint = world.service.ctx.chain.tokens[0]!.mint;
    for (let b = 0; b < 60; b++)
      await world.service.ctx.store.append(
        `payments-${wallet}`,
        Array.from({ length: 500 }, (_, i) => ({
          type: 'payment.received',
          data: {
            agent_id: wallet,
            mint,
            amount: '0.000001',
            from: 'test',
            tx_signature: `sig-${b}-${i}`,
            at: Date.now(),
          },
        })),
        'any',
      );

    const redis = new Redis(topology.env.REDIS_URL!);
    const generations = new ViewGenerations(redis, topology.prefix);
    /** Resolves once a replay holds its lease (it has started rebuilding). */
    const replaying = async () => {
      for (let i = 0; i < 600 && !(await redis.exists(`${topology.prefix}:views:replay-lease`)); i++)
        await sleep(25);
    };
    const replay1 = topology.run('replay');
    await replaying();
    const [projector] = topology.byRole('projector');
    await projector!.kill('SIGKILL');
    const first = await replay1;
    expect(first.output).toMatch(/check: the rebuilt models equal the replaced ones \(\d+ keys\)/);
    expect(first.code).toBe(0);

    // A replay killed half-way leaves a generation nobody reads; the next replay drops it.
    const killed = topology.launch('replay');
    await replaying();
    await sleep(200);
    killed.kill();
    expect((await killed.done).code).toBeNull();
    await projector!.restart();
    // The killed replay's lease runs out within its time to live (10 s); until then a replay says so.
    let second = await topology.run('replay');
    for (let i = 0; i < 20 && second.output.includes('another replay is running'); i++) {
      await sleep(1_000);
      second = await topology.run('replay');
    }
    expect(second.code).toBe(0);
    expect(second.output).toContain('equal the replaced ones');
    expect(await generations.existing()).toEqual([await generations.live()]);
    redis.disconnect();

    // The restarted projector follows the new live generation: new transfers show in the views.
    const transfers = burst([sender], payee.id, 3);
    await settleAll(world.client, transfers);
    const history = await world.client.call<{ transactions: unknown[] }>('GET', '/api/v1/history', {
      token: sender.key,
    });
    expect(history.body.transactions).toHaveLength(3);
    await expectModelsEqualReplay(topology);
  });

  // Last of these: the stopped instance is not started again.
  it('both API instances killed (-9) as delayed proposals come due: each executes once after the restart', async () => {
    const governance = `/api/v1/orchestrator/groups/${world.groupId}/governance`;
    const setDelay = await enact(world.client, [world.operator], 'PUT', governance, { delay_seconds: 2 });
    expect(setDelay.body.status).toBe('executed'); // under the delay in force then: none
    const asked: (ProposalReply & { ready_at: string | null })[] = [];
    for (let i = 0; i < 6; i++) {
      const entry = { address: generateSigner().address, type: 1, approved_amount: '5', ttl_seconds: 86_400 };
      const signed = await enact(
        world.client,
        [world.operator],
        'POST',
        `/api/v1/orchestrator/groups/${world.groupId}/whitelist`,
        entry,
      );
      expect(signed.body.status).toBe('ready');
      asked.push(signed.body as (typeof asked)[number]); // a proposal's answer carries its ready_at
    }
    // Both schedulers are killed as the first comes due: one may be executing it, or the next.
    await sleep(Math.max(0, Date.parse(asked[0]!.ready_at!) - Date.now()) + 20);
    await Promise.all(topology.apis.map((api) => api.kill('SIGKILL')));
    await Promise.all(topology.apis.map((api) => api.restart()));

    const log = async () =>
      (await world.log()).filter(
        (e) => e.type === 'governance.executed' || e.type === 'whitelist.entry_added',
      );
    const made = async (id: string) =>
      (await log()).filter((e) => (e.data as { proposal_id?: string }).proposal_id === id).map((e) => e.type);
    for (const p of asked) {
      for (let i = 0; i < 300 && (await made(p.proposal_id)).length < 2; i++) await sleep(100);
      expect((await made(p.proposal_id)).sort()).toEqual(['governance.executed', 'whitelist.entry_added']);
    }
    // The other tests' group has no delay again: a proposal the scheduler executes 2 s after.
    const back = await enact(world.client, [world.operator], 'PUT', governance, { delay_seconds: 0 });
    for (let i = 0; i < 100 && (await made(back.body.proposal_id)).length < 1; i++) await sleep(100);
    expect(await made(back.body.proposal_id)).toEqual(['governance.executed']);
  });

  it('an API instance stopped with a console’s event stream open: the stream ends at once, it exits 0, and the console goes on from its last event id on the other instance', async () => {
    const [stopped, other] = topology.apis;
    const open = follow(stopped!.url, world);
    await until(() => open.got.length >= 2); // the group's first events
    const signalled = Date.now();
    const exit = stopped!.kill('SIGTERM');
    expect(await open.ended).toBe('ended'); // ended by the instance, not cut by its exit
    expect(await exit).toBe(0);
    // Without the stop ending its streams, it ran out its 30 s grace and exited 1.
    expect(Date.now() - signalled).toBeLessThan(10_000);

    // Meanwhile the operator allow-lists a recipient; the console reconnects to the other instance
    // with the last id it saw, and gets what came after it: exactly what a full read has after it.
    const recipient = generateSigner().address;
    const added = await enact(
      new Client(other!.url),
      [world.operator],
      'POST',
      `/api/v1/orchestrator/groups/${world.groupId}/whitelist`,
      { address: recipient, type: 1, approved_amount: '5', ttl_seconds: 86_400 },
    );
    expect(added.body.status).toBe('executed');
    const last = open.got.at(-1)!.id;
    const isNew = (m: EventSourceMessage) =>
      m.event === 'whitelist.entry_added' && m.data.includes(recipient);
    const resumed = follow(other!.url, world, last);
    const all = follow(other!.url, world);
    await until(() => resumed.got.some(isNew) && all.got.some(isNew));
    resumed.stop();
    all.stop();
    const after = all.got.findIndex((m) => m.id === last);
    expect(after).toBeGreaterThan(0);
    const upTo = (got: EventSourceMessage[]) => got.slice(0, got.findIndex(isNew) + 1).map((m) => m.id);
    expect(upTo(resumed.got)).toEqual(upTo(all.got.slice(after + 1)));
  });
});

/**
 * The world's group's event stream on `url` as the console follows it (server-sent events, from
 * `lastEventId` when given): the messages so far, how the stream ended (its end, or a cut
 * connection), and a stop.
 */
function follow(url: string, world: World, lastEventId?: string) {
  const halt = new AbortController();
  const got: EventSourceMessage[] = [];
  const ended = (async (): Promise<'ended' | 'cut'> => {
    try {
      const res = await fetch(`${url}/api/v1/orchestrator/groups/${world.groupId}/events`, {
        headers: {
          authorization: `Bearer ${world.operator.token}`,
          accept: 'text/event-stream',
          ...(lastEventId && { 'last-event-id': lastEventId }),
        },
        signal: halt.signal,
      });
      const reader = res
        .body!.pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return 'ended';
        got.push(value);
      }
    } catch {
      return 'cut';
    }
  })();
  return { got, ended, stop: () => halt.abort() };
}

async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !ok(); await sleep(50))
    if (Date.now() > deadline) throw new Error(`not so within ${ms} ms`);
}

describe('Redis and PostgreSQL restarted under load', () => {
  let pg: PrivateServer;
  let redis: PrivateServer;
  let topology: Topology;
  let world: World;

  beforeAll(async () => {
    [pg, redis] = await Promise.all([privatePostgres(), privateRedis()]);
    topology = await new Topology({ ...STACK, databaseUrl: pg.url, redisUrl: redis.url }).start();
    world = await startWorld({}, info(topology));
  });
  afterAll(async () => {
    await world?.close();
    await topology?.stop();
    await Promise.all([pg?.close(), redis?.close()]);
  });

  it('answers 503 in the envelope while one is down, recovers by itself, and loses nothing', async () => {
    const senders = await Promise.all(Array.from({ length: 4 }, () => world.agent(LIMITS, 1_000)));
    const payee = await world.agent({}, 0);
    const before = await usdcOf(world, payee.id);
    const sent: Transfer[] = [];
    const failures: Reply[] = [];
    let running = true;
    const load = Promise.all(
      senders.map(async (s) => {
        while (running) {
          const [t] = burst([s], payee.id, 1);
          sent.push(t!);
          const r = await world.client
            .call('POST', '/api/v1/transfer', { token: t!.token, body: t!.body })
            .catch(() => undefined);
          if (r && r.status !== 200) failures.push(r);
          if (!r || r.status !== 200) await sleep(100);
        }
      }),
    );

    await sleep(1_500);
    await redis.stop();
    await sleep(2_000);
    await redis.start();
    await sleep(3_000);
    await pg.stop();
    await sleep(2_000);
    await pg.start();
    await sleep(3_000);
    running = false;
    await load;

    // While down: a clear answer in the envelope (503, or 409 for a wait that ran out), never a 500.
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) {
      expect([409, 503]).toContain(f.status);
      expect(['service_unavailable', 'idempotency_in_progress']).toContain(f.body.error);
    }
    expect(failures.some((f) => f.status === 503)).toBe(true);

    // Back by itself: every process ready, every transfer settles once.
    for (const p of topology.procs) await p.ready(30_000);
    const answers = await settleAll(world.client, sent);
    await expectPaidOnce(world, answers, payee.id, before);
    await expectModelsEqualReplay(topology);
  });
});
