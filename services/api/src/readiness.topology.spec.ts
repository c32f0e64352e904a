/**
 * Readiness that tells the truth, on the server topology: `/readyz` of the API, the projector, the
 * executor and the delivery worker goes 503 naming the dependency that stopped (the chain node
 * killed, Redis stopped, PostgreSQL cut off) and 200 again once it is back; a process that does not
 * need the stopped dependency stays ready. Redis is a server of the test's own, PostgreSQL is reached
 * through a proxy the test cuts, so the servers other suites share are left alone.
 */
import { privateRedis, type PrivateServer } from '@tokenops/testing/private-servers';
import { TcpProxy } from '@tokenops/testing/tcp-proxy';
import { Topology, type Proc, type Role } from '@tokenops/testing/topology';
import { setTimeout as sleep } from 'node:timers/promises';

jest.setTimeout(120_000);

type Body = { status: string; failing?: string[] };

async function readiness(proc: Proc): Promise<{ status: number; body: Body } | undefined> {
  return fetch(`${proc.url}/readyz`)
    .then(async (r) => ({ status: r.status, body: (await r.json()) as Body }))
    .catch(() => undefined);
}

/** Polls every process's `/readyz` until each answers what `expected` says of its role (20 s at most). */
async function expectReadiness(procs: Proc[], expected: (role: Role) => string[]): Promise<void> {
  const want = (p: Proc) => {
    const failing = expected(p.role);
    return failing.length === 0
      ? { status: 200, body: { status: 'ready' } }
      : { status: 503, body: { status: 'not ready', failing } };
  };
  const deadline = Date.now() + 20_000;
  let answers = await Promise.all(procs.map(readiness));
  while (
    Date.now() < deadline &&
    answers.some((a, i) => JSON.stringify(a) !== JSON.stringify(want(procs[i]!)))
  ) {
    await sleep(200);
    answers = await Promise.all(procs.map(readiness));
  }
  expect(Object.fromEntries(procs.map((p, i) => [p.name, answers[i]]))).toEqual(
    Object.fromEntries(procs.map((p) => [p.name, want(p)])),
  );
}

describe('/readyz names the dependency that stopped, and is ready again when it returns', () => {
  let redis: PrivateServer;
  let postgres: TcpProxy;
  let topology: Topology;
  let procs: Proc[];
  const none = () => [];

  beforeAll(async () => {
    const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    [redis, postgres] = await Promise.all([privateRedis(), TcpProxy.open(databaseUrl)]);
    // Assigned before it starts, so that afterAll stops whatever started should the start fail.
    topology = new Topology({
      apis: 1,
      executors: 1,
      projectors: 1,
      deliveries: 1,
      databaseUrl: postgres.url(databaseUrl),
      redisUrl: redis.url,
    });
    await topology.start();
    procs = topology.procs.filter((p) => p.role !== 'chain');
  });
  afterAll(async () => {
    await topology?.destroy();
    await Promise.all([redis?.close(), postgres?.cut()]);
  });

  it('all ready while every dependency answers', async () => {
    await expectReadiness(procs, none);
  });

  it('the chain node killed: the API and the executor name the chain; the others stay ready', async () => {
    await topology.chain.kill('SIGKILL');
    try {
      await expectReadiness(procs, (role) => (role === 'api' || role === 'executor' ? ['chain'] : []));
    } finally {
      await topology.chain.start().ready();
    }
    await expectReadiness(procs, none);
  });

  it('PostgreSQL cut off: every process names the log, and those that keep webhooks their database too', async () => {
    await postgres.cut();
    try {
      await expectReadiness(procs, (role) =>
        role === 'api' || role === 'delivery' ? ['eventstore', 'webhook-database'] : ['eventstore'],
      );
    } finally {
      await postgres.restore();
    }
    await expectReadiness(procs, none);
  });

  it('Redis stopped: every process names Redis', async () => {
    await redis.stop();
    try {
      await expectReadiness(procs, () => ['redis']);
    } finally {
      await redis.start();
    }
    await expectReadiness(procs, none);
  });
});
