/**
 * The operator CLI's `approvals` commands, run against the service as an operator would (in the test's
 * process): turn approvals on for a group, see a held spend, approve it by signing its message with
 * the keypair file (the agent's retry then answers the confirmed transfer), reject another.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBooks } from '@tokenops/testing/conservation';
import { keypairFile, tokenops } from '@tokenops/testing/cli';
import { key, startWorld, until, type World } from '@tokenops/testing/harness';

let world: World;
let keypair: string;
let books: Awaited<ReturnType<typeof openBooks>>;
const out = async (...args: string[]) =>
  (await tokenops('--url', world.service.url, '--keypair', keypair, ...args)).stdout;

beforeAll(async () => {
  world = await startWorld();
  books = await openBooks(world);
  // The CLI signs in as the world's operator, the owner of its group (and its one approver).
  keypair = keypairFile(world.operator.wallet, 'cli-approvals-');
}, 60_000);
afterAll(async () => {
  await books?.expectBalanced();
  await world?.close();
});

describe('tokenops approvals', () => {
  it('turns approvals on, lists a held spend, approves it by signing, rejects another', async () => {
    expect(await out('policy', 'show', world.groupId)).toMatch(/^nothing is held by the group/);
    const set = JSON.parse(await out('--json', 'approvals', 'policy', world.groupId, '--threshold', '25'));
    expect(set).toMatchObject({ threshold: '25', approvers: [world.operator.wallet.address], quorum: 1 });
    expect(await out('policy', 'show', world.groupId)).toBe(
      'held: spends valued above 25 in the base token\n' +
        `decided by 1 of 1 approver(s) within 86400 s: ${world.operator.wallet.address}\n`,
    );

    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 10 });
    const send = (idempotency_key: string, amount: number) =>
      world.client.call<Record<string, unknown>>('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: world.vendor, amount, idempotency_key },
      });
    const k = key();
    expect((await send(k, 30)).status).toBe(409);

    const listed = await out('approvals', 'list', world.groupId, '--status', 'pending');
    const [id, status] = listed.trim().split(/ {2,}/);
    expect(status).toBe('pending');
    expect(listed).toContain(`transfer 30 (30 in base) to ${world.vendor}`);
    expect(listed).toContain('signed 0/1');
    expect(await out('approvals', 'show', id!)).toContain(`message: TokenOps approval of a held spend`);

    const approved = JSON.parse(await out('--json', 'approvals', 'approve', id!));
    expect(approved).toMatchObject({ status: 'approved', approved_by: [world.operator.wallet.address] });
    const done = await until(async () => {
      const r = await send(k, 30);
      return r.status !== 409 && r;
    });
    expect(done.body).toMatchObject({ status: 'confirmed', net_amount: 29.97 });

    const other = key();
    await send(other, 40);
    const second = (await out('approvals', 'list', world.groupId, '--status', 'pending')).split(/ {2,}/)[0]!;
    expect(await out('approvals', 'reject', second, '--reason', 'too much')).toContain('status: rejected');
    expect((await send(other, 40)).body).toMatchObject({ error: 'approval_rejected' });
    expect(await out('approvals', 'list', world.groupId, '--status', 'rejected')).toContain(
      `rejected by ${world.operator.wallet.address} (too much)`,
    );
    // A second decision is refused, and says why.
    await expect(out('approvals', 'approve', second)).rejects.toMatchObject({
      stderr: expect.stringContaining('409 conflict'),
    });
  }, 30_000);

  it('previews a policy over the spends it made: counts, and the spends whose verdict would change', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const text = await out('policy', 'preview', world.groupId, '--per-tx', '35', '--since', since);
    // The two spends were held (threshold 25): under a per-tx limit of 35, 40 would be blocked instead.
    expect(text).toMatch(/^2 spends from .*: 1 would be held, 1 blocked {2}per_tx_limit_exceeded 1$/m);
    expect(text).toMatch(/ transfer 40 to \S+ {2}agent \S+: held -> per_tx_limit_exceeded$/m);
  });

  it('previews guard rules from a file and group limits: who would be frozen, by which rule', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const dir = mkdtempSync(join(tmpdir(), 'cli-guard-'));
    const rules = join(dir, 'guard.json');
    writeFileSync(
      rules,
      JSON.stringify({ rules: [{ kind: 'velocity', factor: 1, min_count: 2, action: 'freeze_agent' }] }),
    );
    // The agent's second spend of the hour is above its usual and the second: it would freeze the agent.
    const guarded = await out('policy', 'preview', world.groupId, '--guard', rules, '--since', since);
    expect(guarded).toMatch(/^2 spends from .*: 1 would be held, 1 blocked {2}agent_frozen 1$/m);
    expect(guarded).toMatch(/ transfer 40 to \S+ {2}agent \S+: held -> agent_frozen \(velocity\)$/m);
    expect(guarded).toMatch(/ {2}agent \S+ would be frozen by velocity$/m);
    // A daily limit of 50 over the fleet: the 30 fits, the 40 after it does not.
    const limited = await out(
      'policy',
      'preview',
      world.groupId,
      '--group-daily',
      '50',
      '--group-hourly',
      'none',
      '--since',
      since,
    );
    expect(limited).toMatch(/ transfer 40 to \S+ {2}agent \S+: held -> group_daily_limit_exceeded$/m);
    await expect(out('policy', 'preview', world.groupId, '--group-hourly', 'ten')).rejects.toMatchObject({
      stderr: expect.stringContaining('--group-hourly must be a whole number or none'),
    });
    // A bad rule is the service's 400, naming its field under /guard.
    writeFileSync(rules, JSON.stringify([{ kind: 'velocity', factor: 0.5, min_count: 2, action: 'hold' }]));
    await expect(out('policy', 'preview', world.groupId, '--guard', rules)).rejects.toMatchObject({
      stderr: expect.stringContaining('/guard/rules/0/factor'),
    });
  });
});
