/**
 * Reconciliation of the log with the chain, as an operator runs it: after real transfers (to an
 * outside recipient and to another agent), a swap and a deposit, the log and the chain agree; once
 * tokens leave an agent's wallet behind the service's back, reconciliation reports exactly that
 * movement and the balance it leaves, over HTTP and through `tokenops audit reconcile` (exit code 1).
 */
import { ensureTokenAccount, generateSigner, tokenTransfer, type Context } from '@tokenops/shared';
import { keypairFile, runCaptured } from '@tokenops/testing/cli';
import { key, signIn, startWorld, type World } from '@tokenops/testing/harness';

let world: World;
let keypair: string;
let agentA: { id: string; key: string };
let agentB: { id: string; key: string };

const chain = () => world.service.ctx.chain;
const mintOf = (symbol: string) => chain().tokens.find((t) => t.symbol === symbol)!.mint;

interface Discrepancy {
  kind: string;
  agent_id: string;
  signature?: string;
  mint?: string;
  amount?: string;
  expected?: string;
  actual?: string;
  difference?: string;
}
const reconciliation = (query = '', token = world.operator.token) =>
  world.client.call<{ discrepancies: Discrepancy[]; agents: number; transactions: number }>(
    'GET',
    `/api/v1/orchestrator/groups/${world.groupId}/reconciliation${query}`,
    { token },
  );

/** The CLI: its exit code and what it printed. */
const cli = (...args: string[]) => runCaptured(['--url', world.service.url, '--keypair', keypair, ...args]);

beforeAll(async () => {
  world = await startWorld({ rateLimitPerMinute: 10_000 });
  keypair = keypairFile(world.operator.wallet, 'reconcile-');
  const venue = (await world.client.call<{ venues: { lending_program: string }[] }>('GET', '/api/v1/venues'))
    .body.venues[0]!.lending_program;
  await world.allow({ address: venue, type: 2, label: 'venue' });
  const limits = { per_tx_limit: 500, daily_limit: 1_000, hourly_tx_cap: 50 };
  agentA = await world.agent(limits, 300);
  agentB = await world.agent(limits, 50);
  const spends: [string, Record<string, unknown>][] = [
    ['/api/v1/transfer', { to: world.vendor, amount: 25.5, memo: 'invoice 7' }],
    ['/api/v1/transfer', { to: agentB.id, amount: 10 }],
    [
      '/api/v1/swap',
      { from_token: 'USDC', from_mint: mintOf('USDC'), to_token: 'SOL', to_mint: mintOf('SOL'), amount: 20 },
    ],
    ['/api/v1/deposit', { lending_program: venue, amount: 40 }],
  ];
  for (const [path, body] of spends) {
    const res = await world.client.call('POST', path, {
      token: agentA.key,
      body: { ...body, idempotency_key: key() },
    });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  // Agent B spends too: its transfer is from what agent A sent it.
  const back = await world.client.call('POST', '/api/v1/transfer', {
    token: agentB.key,
    body: { to: world.vendor, amount: 3, idempotency_key: key() },
  });
  if (back.status !== 200) throw new Error(`transfer of B: ${JSON.stringify(back.body)}`);
}, 60_000);
afterAll(async () => world?.close());

it('finds the log and the chain in agreement after transfers, a swap and a deposit', async () => {
  const clean = await reconciliation();
  expect(clean.status).toBe(200);
  expect(clean.body.discrepancies).toEqual([]);
  expect(clean.body.agents).toBe(2);
  // Two airdrops, three transfers, a swap, a deposit.
  expect(clean.body.transactions).toBe(7);
  const printed = await cli('audit', 'reconcile', '--group', world.groupId);
  expect(printed).toEqual({
    code: 0,
    stdout: expect.stringMatching(/^clean: group \w+, 2 agents, 7 transactions/),
    stderr: '',
  });
});

it('refuses a stranger, a window that ends before it starts, and a time that is not one', async () => {
  const stranger = await signIn(world.client);
  expect((await reconciliation('', stranger.token)).status).toBe(403);
  const backwards = await reconciliation('?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z');
  expect([backwards.status, backwards.body]).toEqual([
    400,
    expect.objectContaining({ error: 'validation_error' }),
  ]);
  const garbage = await reconciliation('?from=yesterday');
  expect([garbage.status, garbage.body]).toEqual([
    400,
    expect.objectContaining({ error: 'validation_error' }),
  ]);
  const unknown = await reconciliation('?since=2026-01-01T00:00:00Z');
  expect(unknown.status).toBe(400);
});

// Signing as the agent needs the service's custody of its key (`ctx.wallets`), which only the
// embedded service has in this process: on the server topology this test is skipped.
const onTopology = (globalThis as { TOPOLOGY?: boolean }).TOPOLOGY === true;

(onTopology ? it.skip : it)(
  'reports exactly a movement out of an agent wallet made behind the service, and the balance it leaves',
  async () => {
    const wallets = (world.service.ctx as Context).wallets;
    const signer = await wallets.signer(agentA.id);
    const usdc = chain().tokens.find((t) => t.symbol === 'USDC')!;
    const thief = generateSigner().address;
    const to = await ensureTokenAccount(chain(), thief, usdc.mint);
    const from = await ensureTokenAccount(chain(), agentA.id, usdc.mint);
    const tx = await chain().prepare(
      [
        ...to.create,
        tokenTransfer(from.account, to.account, agentA.id, usdc.mint, 12_500_000n, usdc.decimals),
      ],
      [signer],
    );
    await chain().submit(tx);

    const found = await reconciliation();
    expect(found.status).toBe(200);
    expect(found.body.discrepancies).toEqual([
      expect.objectContaining({
        kind: 'unexplained_outflow',
        agent_id: agentA.id,
        signature: tx.signature,
        mint: usdc.mint,
        amount: '12.5',
      }),
      expect.objectContaining({
        kind: 'balance_mismatch',
        agent_id: agentA.id,
        mint: usdc.mint,
        expected: '204.5', // 300 - 25.5 - 10 - 20 - 40
        actual: '192',
        difference: '-12.5',
      }),
    ]);

    const printed = await cli('audit', 'reconcile', '--group', world.groupId);
    expect(printed.code).toBe(1);
    expect(printed.stdout).toContain(
      `unexplained_outflow: 12.5 of ${usdc.mint} left the agent's wallet in ${tx.signature}`,
    );
    expect(printed.stdout).toMatch(/balance_mismatch: .*difference -12\.5/);
    expect(printed.stdout).toMatch(/2 discrepancies: group/);
    const json = await cli('--json', 'audit', 'reconcile', '--group', world.groupId);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as { discrepancies: unknown[] }).discrepancies).toHaveLength(2);

    // A window that ends before the spends leaves out the movement (it came after all of them); the
    // balance is compared as it is now, whatever the window.
    const before = await reconciliation('?to=2000-01-01T00:00:00Z');
    expect(before.body.discrepancies.map((d) => d.kind)).toEqual(['balance_mismatch']);
  },
);
