/**
 * Delivery on the server topology under faults: a delivery worker killed (-9) in a burst of events,
 * then Redis (the queue, the leases) restarted with its data lost. Every event still arrives at least
 * once: the deliveries are kept in PostgreSQL, and a relay that starts (again) enqueues those not
 * finished.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publicEventId } from '@tokenops/shared';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import { RECEIVER_HOST, key, startWorld, type World } from '@tokenops/testing/harness';
import { privateRedis, type PrivateServer } from '@tokenops/testing/private-servers';
import { Topology } from '@tokenops/testing/topology';
import { info } from '@tokenops/testing/transfers';
import { setTimeout as sleep } from 'node:timers/promises';

jest.setTimeout(240_000);

describe('a delivery worker killed in a burst, then Redis restarted', () => {
  let redis: PrivateServer;
  let topology: Topology;
  let world: World;
  let receiver: Receiver;

  beforeAll(async () => {
    const tls = await testCertificates({ addresses: [RECEIVER_HOST] });
    receiver = await startReceiver({ tls, host: RECEIVER_HOST });
    redis = await privateRedis();
    topology = new Topology({
      apis: 1,
      executors: 1,
      projectors: 1,
      deliveries: 2,
      redisUrl: redis.url,
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        WEBHOOK_ALLOWED_PRIVATE_HOSTS: `${RECEIVER_HOST}:${receiver.port}`,
        WEBHOOK_RETRY_BASE_MS: '200',
        EXECUTOR_LOCK_MS: '2000',
      },
    });
    const caFile = join(topology.logDir, 'webhook-ca.pem');
    writeFileSync(caFile, tls.ca);
    topology.env.WEBHOOK_CA_FILE = caFile;
    await topology.start();
    world = await startWorld({}, info(topology));
  });
  afterAll(async () => {
    await world?.close();
    await topology?.destroy(); // its schema is on the shared PostgreSQL
    await redis?.close();
    await receiver?.close();
  });

  it('delivers every event at least once', async () => {
    await world.subscribe({
      url: `${receiver.url}burst`,
      event_types: ['policy.transfer_blocked'],
    });
    const agents = await Promise.all(
      Array.from({ length: 3 }, () =>
        world.agent({ per_tx_limit: 1, daily_limit: 10, hourly_tx_cap: 10 }, 0),
      ),
    );
    let running = true;
    // Each refused transfer (over the per-transaction limit) is one policy.transfer_blocked event.
    const load = Promise.all(
      agents.map(async (a) => {
        while (running) {
          await world.client
            .call('POST', '/api/v1/transfer', {
              token: a.key,
              body: { to: world.vendor, amount: 5, idempotency_key: key() },
            })
            .catch(() => sleep(100));
        }
      }),
    );
    await sleep(1_500);
    const [victim] = topology.byRole('delivery');
    await victim!.kill('SIGKILL');
    await sleep(1_000);
    await redis.stop();
    await sleep(1_500);
    await redis.start();
    await sleep(1_500);
    await victim!.start().ready(60_000);
    await sleep(1_000);
    running = false;
    await load;

    const blocked = (await world.log()).filter((e) => e.type === 'intent.blocked');
    expect(blocked.length).toBeGreaterThan(20);
    const expected = new Set(blocked.map((e) => publicEventId(e.id, 'policy.transfer_blocked')));
    const received = () =>
      new Set(
        receiver.requests
          .filter((r) => r.url === '/burst')
          .map((r) => (JSON.parse(r.body) as { event_id: string }).event_id),
      );
    const deadline = Date.now() + 90_000;
    let missing = [...expected].filter((id) => !received().has(id));
    while (missing.length > 0 && Date.now() < deadline) {
      await sleep(500);
      missing = [...expected].filter((id) => !received().has(id));
    }
    expect({ missing: missing.length, of: expected.size }).toEqual({ missing: 0, of: expected.size });
  });
});
