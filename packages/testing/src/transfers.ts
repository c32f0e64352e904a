/**
 * What the fault tests of the server topology check after a process died: transfers sent again with
 * their keys until each has its final answer, each paid exactly once on chain with one outcome in
 * the log, and the read models equal to a replay of the log.
 */
import { key, type Client, type Reply, type StackInfo, type World } from './harness';
import type { Topology } from './topology';
import { setTimeout as sleep } from 'node:timers/promises';

/** Where a topology's API instances are, for the harness. */
export const info = (t: Topology): StackInfo => ({
  apis: t.apis.map((p) => p.url),
  env: t.env,
  logDir: t.logDir,
});

export interface Transfer {
  token: string;
  body: { to: string; amount: number; idempotency_key: string };
}

/** Sends each transfer again (same key) until every one has its final answer; the answers. */
export async function settleAll(
  client: Client,
  transfers: Transfer[],
  timeoutMs = 120_000,
): Promise<Reply[]> {
  const deadline = Date.now() + timeoutMs;
  const answers: (Reply | undefined)[] = transfers.map(() => undefined);
  while (answers.some((a) => a?.status !== 200)) {
    await Promise.all(
      transfers.map(async (t, i) => {
        if (answers[i]?.status === 200) return;
        answers[i] = await client
          .call('POST', '/api/v1/transfer', { token: t.token, body: t.body })
          .catch(() => undefined);
      }),
    );
    if (Date.now() > deadline)
      throw new Error(`not settled: ${JSON.stringify(answers.filter((a) => a?.status !== 200).slice(0, 3))}`);
    if (answers.some((a) => a?.status !== 200)) await sleep(250);
  }
  return answers as Reply[];
}

/** The outcomes in the log per intent of these idempotency keys' agents. */
export async function outcomes(world: World): Promise<{ confirmed: Map<string, string[]>; failed: number }> {
  const all = await world.log();
  const confirmed = new Map<string, string[]>();
  let failed = 0;
  for (const e of all) {
    if (e.type === 'intent.confirmed') {
      const d = e.data as { intent_id: string; tx_sig: string };
      confirmed.set(d.intent_id, [...(confirmed.get(d.intent_id) ?? []), d.tx_sig]);
    }
    if (e.type === 'intent.failed') failed++;
  }
  return { confirmed, failed };
}

export const usdcOf = async (world: World, address: string) =>
  (await world.service.ctx.chain.balances(address)).get(world.service.ctx.chain.tokens[0]!.mint) ?? 0n;

/** Every transfer answered once, confirmed, paid exactly once on chain. */
export async function expectPaidOnce(
  world: World,
  answers: Reply[],
  payee: string,
  payeeBefore: bigint,
): Promise<void> {
  expect(answers.every((a) => a.body.status === 'confirmed')).toBe(true);
  const sigs = answers.map((a) => a.body.tx_sig as string);
  expect(new Set(sigs).size).toBe(answers.length);
  for (const sig of sigs) expect(await world.service.ctx.chain.status(sig)).toBe('confirmed');
  const { confirmed } = await outcomes(world);
  for (const sig of sigs) {
    const entries = [...confirmed.values()].filter((s) => s.includes(sig));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toHaveLength(1); // one outcome per intent
  }
  // 1 USDC each, 0.999 to the payee: a second payment of any would show here.
  expect((await usdcOf(world, payee)) - payeeBefore).toBe(BigInt(answers.length) * 999_000n);
}

export async function expectModelsEqualReplay(topology: Topology): Promise<void> {
  const check = await topology.run('replay', ['--verify']);
  expect(check.output).toContain('equal a replay of the log');
  expect(check.code).toBe(0);
}

/** `each` transfers of 1 USDC from every sender to the payee, each with a key of its own. */
export function burst(senders: { key: string }[], payee: string, each: number): Transfer[] {
  return senders.flatMap((s) =>
    Array.from({ length: each }, () => ({
      token: s.key,
      body: { to: payee, amount: 1, idempotency_key: key() },
    })),
  );
}
