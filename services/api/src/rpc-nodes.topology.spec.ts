/**
 * Several RPC nodes (SOLANA_RPC_URL a list), on the server topology: the executor is given two URLs
 * of the chain node, the first through a TCP proxy (its WebSocket too), the other direct. The proxy
 * is cut while transfers run in parallel, and more are sent while it is away: the executor stays
 * ready, names the cut node as set aside in `/readyz` and its metrics, sends on through the other,
 * and takes the node back once it answers again. Every transfer is confirmed and paid once, no
 * intent fails, and the books balance.
 */
import { openBooks } from '@tokenops/testing/conservation';
import { startWorld, type World } from '@tokenops/testing/harness';
import { TcpProxy } from '@tokenops/testing/tcp-proxy';
import { Topology, type Proc } from '@tokenops/testing/topology';
import { burst, expectPaidOnce, info, outcomes, settleAll, usdcOf } from '@tokenops/testing/transfers';
import { setTimeout as sleep } from 'node:timers/promises';

jest.setTimeout(120_000);

const STACK = {
  apis: 1,
  executors: 0, // added below, with two URLs of the chain node
  projectors: 1,
  env: { RATE_LIMIT_PER_MINUTE: '100000', SOLANA_RPC_TIMEOUT_MS: '2000' },
};

interface NodeReport {
  node: string;
  healthy: boolean;
  reason?: string;
}

async function until<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined || Date.now() > deadline) return found;
    await sleep(200);
  }
}

describe('two RPC nodes, one cut under load', () => {
  let topology: Topology;
  let world: World;
  let proxy: TcpProxy;
  let executor: Proc;
  let direct: string;
  let proxied: string;

  beforeAll(async () => {
    topology = await new Topology(STACK).start();
    const url = topology.env.SOLANA_RPC_URL!;
    proxy = await TcpProxy.open(url);
    direct = new URL(url).host;
    proxied = new URL(proxy.url(url)).host;
    executor = await topology.add('executor', { SOLANA_RPC_URL: `${proxy.url(url)},${url}` });
    world = await startWorld({}, info(topology));
  });
  afterAll(async () => {
    await proxy?.cut();
    await world?.close();
    await topology?.destroy();
  });

  const readiness = async () => {
    const response = await fetch(`${executor.url}/readyz`);
    const body = (await response.json()) as { status: string; nodes?: { chain?: NodeReport[] } };
    return { status: response.status, nodes: body.nodes?.chain ?? [] };
  };
  const metric = async (name: string, node: string) => {
    const text = await fetch(`${executor.url}/metrics`).then((r) => r.text());
    const line = new RegExp(`^${name}\\{[^}]*node="${node.replace(/\./g, '\\.')}"[^}]*\\} (\\d+)$`, 'm').exec(
      text,
    );
    return line ? Number(line[1]) : undefined;
  };
  const proxiedIs = (healthy: boolean) =>
    until(20_000, async () => {
      const r = await readiness();
      const node = r.nodes.find((n) => n.node === proxied);
      return r.status === 200 &&
        node?.healthy === healthy &&
        (await metric('tokenops_rpc_node_healthy', proxied)) === (healthy ? 1 : 0)
        ? r
        : undefined;
    });

  it('sends on through the other node, names the cut one set aside then healthy again, and loses or doubles nothing', async () => {
    const books = await openBooks(world, { ownChain: true });
    const senders = await Promise.all(
      Array.from({ length: 4 }, () =>
        world.agent({ per_tx_limit: 100, daily_limit: 1_000, hourly_tx_cap: 100 }, 100),
      ),
    );
    const payee = await world.agent({}, 0);
    const before = await usdcOf(world, payee.id);
    expect((await readiness()).nodes).toEqual(
      [
        { node: proxied, healthy: true, errors: 0 },
        { node: direct, healthy: true, errors: 0 },
      ].map((n) => expect.objectContaining(n)),
    );

    // Transfers in parallel; the proxied node is cut while they run, and more come while it is away.
    const first = settleAll(world.client, burst(senders, payee.id, 5));
    await sleep(150);
    await proxy.cut();
    const during = settleAll(world.client, burst(senders, payee.id, 3));

    // The executor stays ready on the direct node and says which node is set aside, and why.
    const aside = await proxiedIs(false);
    expect(aside?.nodes).toEqual([
      expect.objectContaining({ node: proxied, healthy: false, reason: expect.any(String) }),
      expect.objectContaining({ node: direct, healthy: true }),
    ]);
    expect(await metric('tokenops_rpc_node_healthy', direct)).toBe(1);
    expect(await metric('tokenops_rpc_node_errors_total', proxied)).toBeGreaterThan(0);
    expect(await metric('tokenops_rpc_node_errors_total', direct)).toBe(0);

    const answers = [...(await first), ...(await during)];
    await proxy.restore();
    expect(await proxiedIs(true)).toBeDefined();

    // Every transfer confirmed once, paid once; no intent failed; not a unit made or lost.
    expect(answers).toHaveLength(32);
    await expectPaidOnce(world, answers, payee.id, before);
    expect((await outcomes(world)).failed).toBe(0);
    await books.expectBalanced();
  });
});
