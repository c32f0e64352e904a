/**
 * Readiness that tells the truth, on the server topology: `/readyz` of the API, the projector, the
 * executor and the delivery worker goes 503 naming the dependency that stopped (the chain node
 * killed, Redis stopped, PostgreSQL cut off) and 200 again once it is back; a process that does not
 * need the stopped dependency stays ready. The API and the executor name their RPC node (by host and
 * port), healthy or set aside, ready or not. Redis is a server of the test's own, PostgreSQL is reached
 * through a proxy the test cuts, so the servers other suites share are left alone.
 */
import { privateRedis, type PrivateServer } from '@tokenops/testing/private-servers';
import { TcpProxy } from '@tokenops/testing/tcp-proxy';
import { Topology, type Proc, type Role } from '@tokenops/testing/topology';
import { setTimeout as sleep } from 'node:timers/promises';

jest.setTimeout(120_000);

type Body = { status: string; failing?: string[]; nodes?: { chain?: { node: string; healthy: boolean }[] } };

/** The answer, its RPC nodes as `host:port healthy` or `host:port set aside`. */
async function readiness(proc: Proc): Promise<{ status: number; body: Body; chain?: string[] } | undefined> {
  return fetch(`${proc.url}/readyz`)
    .then(async (r) => {
      const { nodes, ...body } = (await r.json()) as Body;
      const chain = nodes?.chain?.map((n) => `${n.node} ${n.healthy ? 'healthy' : 'set aside'}`);
      return { status: r.status, body, ...(chain && { chain }) };
    })
    .catch(() => undefined);
}

/** The chain node's host and port, as readiness names it. */
let chainNode = '';

/** Polls every process's `/readyz` until each answers what `expected` says of its role (20 s at most). */
async function expectReadiness(procs: Proc[], expected: (role: Role) => string[]): Promise<void> {
  const want = (p: Proc) => {
    const failing = expected(p.role);
    const chain =
      p.role === 'api' || p.role === 'executor'
        ? { chain: [`${chainNode} ${failing.includes('chain') ? 'set aside' : 'healthy'}`] }
        : {};
    return failing.length === 0
      ? { status: 200, body: { status: 'ready' }, ...chain }
      : { status: 503, body: { status: 'not ready', failing }, ...chain };
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
    chainNode = new URL(topology.env.SOLANA_RPC_URL!).host;
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
