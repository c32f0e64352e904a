/**
 * The chain node away for longer than the executor's retry budget, on the server topology: the job of
 * a transfer accepted meanwhile runs out of attempts (EXECUTOR_RETRY_ATTEMPTS, short here, so the test
 * does not wait the default's 32 to 64 s). The intent waits on the chain (a metric says how many), the
 * agent's retries answer idempotency_in_progress, the executor is not ready; once the chain answers,
 * the intent finishes by itself, paid once, and the agent's retry answers the original outcome. The
 * executor's log stays JSON lines while its chain is away (web3.js printed "ws error: …" lines). The
 * dead job is counted as dead of the chain's absence, which the dead-jobs alert leaves out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { key, startWorld, type World } from '@tokenops/testing/harness';
import { TcpProxy } from '@tokenops/testing/tcp-proxy';
import { Topology, type Proc } from '@tokenops/testing/topology';
import { info, usdcOf } from '@tokenops/testing/transfers';
import { setTimeout as sleep } from 'node:timers/promises';

jest.setTimeout(180_000);

const STACK = {
  apis: 1,
  executors: 0, // added below, reaching the chain through a proxy the test cuts
  projectors: 1,
  env: {
    EXECUTOR_RETRY_ATTEMPTS: '2',
    CHAIN_RECOVERY_INTERVAL_MS: '500',
    OUTCOME_TIMEOUT_MS: '2000',
    RATE_LIMIT_PER_MINUTE: '100000',
  },
};

async function until<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined || Date.now() > deadline) return found;
    await sleep(250);
  }
}

describe('the chain away past the retry budget', () => {
  let topology: Topology;
  let world: World;
  let chainProxy: TcpProxy;
  let executor: Proc;

  beforeAll(async () => {
    topology = await new Topology(STACK).start();
    chainProxy = await TcpProxy.open(topology.env.SOLANA_RPC_URL!);
    executor = await topology.add('executor', {
      SOLANA_RPC_URL: chainProxy.url(topology.env.SOLANA_RPC_URL!),
    });
    world = await startWorld({}, info(topology));
  });
  afterAll(async () => {
    await chainProxy?.cut();
    await world?.close();
    await topology?.destroy();
  });

  /** The executor's dead jobs by cause (`tokenops_job_failures_total{fate="dead"}`): what TokenopsDeadJobs reads. */
  const deadJobs = async () => {
    const text = await fetch(`${executor.url}/metrics`).then((r) => r.text());
    const dead: Record<string, number> = {};
    for (const m of text.matchAll(/^tokenops_job_failures_total\{([^}]*)\} (\d+)$/gm))
      if (m[1]!.includes('fate="dead"')) dead[/cause="([^"]*)"/.exec(m[1]!)?.[1] ?? ''] = Number(m[2]);
    return dead;
  };

  const waitingOnChain = async () => {
    const text = await fetch(`${executor.url}/metrics`).then((r) => r.text());
    const line = /^tokenops_intents_waiting_on_chain(?:\{[^}]*\})? (\d+)$/m.exec(text);
    return line ? Number(line[1]) : undefined;
  };

  it('its intents finish by themselves once it answers, paid once; meanwhile a metric counts them', async () => {
    const sender = await world.agent({ per_tx_limit: 100, daily_limit: 1_000, hourly_tx_cap: 100 }, 100);
    const payee = await world.agent({}, 0);
    const usdcBefore = await usdcOf(world, payee.id);
    expect(await waitingOnChain()).toBe(0);

    await chainProxy.cut();
    const body = { to: payee.id, amount: 5, idempotency_key: key() };
    const transfer = () => world.client.call('POST', '/api/v1/transfer', { token: sender.key, body });
    const first = await transfer();
    expect(first.body).toMatchObject({ error: 'idempotency_in_progress' });

    // The job runs out of attempts: its intent waits on the chain, and says so.
    expect(await until(30_000, async () => ((await waitingOnChain()) === 1 ? true : undefined))).toBe(true);
    const retried = await transfer();
    expect([retried.status, retried.body.error]).toEqual([409, 'idempotency_in_progress']);
    // The executor cannot execute without the chain: not ready (its chain check), while the API stays up.
    expect((await fetch(`${executor.url}/readyz`)).status).toBe(503);
    await sleep(2_000); // the chain stays away well past the budget; the intent keeps waiting
    expect(await waitingOnChain()).toBe(1);
    // Its job is dead of the chain's absence: counted apart from the dead jobs an operator must retry
    // (the dead-jobs alert reads only those), since it runs again by itself.
    expect(await deadJobs()).toEqual({ chain: 1 });

    // The chain answers again: the intent finishes without anyone retrying its job by hand.
    await chainProxy.restore();
    const settled = await until(30_000, async () => {
      const answer = await transfer();
      return answer.status === 200 ? answer : undefined;
    });
    expect(settled?.body).toMatchObject({ status: 'confirmed', tx_sig: expect.any(String) });
    expect(await until(10_000, async () => ((await waitingOnChain()) === 0 ? true : undefined))).toBe(true);
    expect((await usdcOf(world, payee.id)) - usdcBefore).toBe(4_995_000n); // once, net of the fee
    const balance = await world.client.call<{ balances: Record<string, number> }>('GET', '/api/v1/balance', {
      token: sender.key,
    });
    expect(balance.body.balances.USDC).toBe(95);
    expect((await fetch(`${executor.url}/readyz`)).status).toBe(200);

    // Its log, through all of it, is JSON lines only.
    const log = readFileSync(join(topology.logDir, `${executor.name}.log`), 'utf8');
    const notJson = log
      .split('\n')
      .filter((line) => line.trim() !== '')
      .filter((line) => {
        try {
          return typeof JSON.parse(line) !== 'object';
        } catch {
          return true;
        }
      });
    expect(notJson).toEqual([]);
  });
});
