/**
 * The operator CLI's kill switch and proposals, run against the service as an operator would: freeze
 * an agent (its spends refused), unfreeze it in one command (proposed and signed with the keypair
 * file), propose without signing then sign, cancel, the group's freeze and its lifting, and the
 * secret of a proposal the service executed after a delay, read once by its proposer; the group's own
 * limits and its guard rules, read and set (a widening one signed in the same command).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBooks } from '@tokenops/testing/conservation';
import { keypairFile, tokenops } from '@tokenops/testing/cli';
import { enact, key, startWorld, until, type World } from '@tokenops/testing/harness';

let world: World;
let keypair: string;
let books: Awaited<ReturnType<typeof openBooks>>;
const out = async (...args: string[]) =>
  (await tokenops('--url', world.service.url, '--keypair', keypair, ...args)).stdout;

beforeAll(async () => {
  world = await startWorld();
  books = await openBooks(world);
  // The CLI signs in as the world's operator, the group's one admin.
  keypair = keypairFile(world.operator.wallet, 'cli-governance-');
}, 60_000);
afterAll(async () => {
  await books?.expectBalanced();
  await world?.close();
});

const send = (agent: { key: string }) =>
  world.client.call<Record<string, unknown>>('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount: 1, idempotency_key: key() },
  });

describe('tokenops freeze, unfreeze, proposals', () => {
  it('freezes an agent and lifts the freeze in one command; proposes, signs and cancels', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 20 });
    const frozen = await out('freeze', 'agent', agent.id, '--reason', 'looping');
    expect(frozen).toContain(`agent ${agent.id} frozen by ${world.operator.wallet.address}`);
    expect(frozen).toContain('(looping)');
    expect(await send(agent)).toMatchObject({ status: 403, body: { error: 'agent_frozen' } });

    // Proposed only: pending, nothing changes; then signed: executed.
    const pending = JSON.parse(await out('--json', 'unfreeze', 'agent', agent.id, '--no-sign'));
    expect(pending).toMatchObject({
      status: 'pending',
      action: 'agent.unfreeze',
      params: { agent: agent.id },
    });
    expect(await send(agent)).toMatchObject({ status: 403, body: { error: 'agent_frozen' } });
    const listed = await out('proposals', 'list', world.groupId, '--status', 'pending');
    expect(listed).toContain(`${pending.proposal_id}  pending  agent.unfreeze`);
    expect(listed).toContain('signed 0/1');
    expect(await out('proposals', 'show', pending.proposal_id)).toContain('TokenOps governance proposal');
    expect(await out('proposals', 'sign', pending.proposal_id)).toContain(`${pending.proposal_id}  executed`);
    expect((await send(agent)).status).toBe(200);

    // Frozen again; a proposal cancelled; then lifted in one command.
    await out('freeze', 'agent', agent.id);
    const cancelled = JSON.parse(await out('--json', 'unfreeze', 'agent', agent.id, '--no-sign'));
    expect(await out('proposals', 'cancel', cancelled.proposal_id, '--reason', 'not yet')).toContain(
      'cancelled',
    );
    expect(await out('unfreeze', 'agent', agent.id)).toMatch(/ {2}executed {2}agent\.unfreeze/);
    expect((await send(agent)).status).toBe(200);

    // Nothing frozen: the proposal is refused at once, and the CLI says why.
    await expect(out('unfreeze', 'agent', agent.id)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('409 conflict'),
    });
  }, 60_000);

  it('freezes the group and lifts it', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 20 });
    expect(await out('freeze', 'group', world.groupId, '--reason', 'drill')).toContain(
      `group ${world.groupId} frozen by`,
    );
    expect(await send(agent)).toMatchObject({ status: 403, body: { error: 'group_frozen' } });
    expect(await out('unfreeze', 'group', world.groupId)).toContain('executed  group.unfreeze');
    expect((await send(agent)).status).toBe(200);
  }, 60_000);

  it('reads, once, the code of an invitation the service executed after the governance delay', async () => {
    await out('governance', 'set', world.groupId, '--delay', '1');
    const groupPath = `/api/v1/orchestrator/groups/${world.groupId}`;
    const ready = await enact(world.client, [world.operator], 'POST', `${groupPath}/invitations`, {});
    expect(ready.body.status).toBe('ready');
    const id = ready.body.proposal_id;
    await until(async () => JSON.parse(await out('--json', 'proposals', 'show', id)).status === 'executed');
    const shown = JSON.parse(await out('--json', 'proposals', 'secret', id));
    expect(shown).toEqual({ proposal_id: id, invitation_code: expect.any(String) });
    const registered = await world.client.call('POST', '/api/v1/register', {
      body: { invitation_code: shown.invitation_code },
    });
    expect(registered.status).toBe(200);
    await expect(out('proposals', 'secret', id)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('409'),
    });
    // No delay again: a proposal too, executed by the scheduler a second later.
    const back = JSON.parse(await out('--json', 'governance', 'set', world.groupId, '--delay', '0'));
    await until(
      async () =>
        JSON.parse(await out('--json', 'proposals', 'show', back.proposal_id)).status === 'executed',
    );
  }, 60_000);
});

describe('tokenops group limits', () => {
  it("reads the group's own limits, sets one at once, lifts it by a proposal signed in the same command", async () => {
    const none = JSON.parse(await out('--json', 'group', 'limits', world.groupId));
    expect(none).toMatchObject({ daily_limit: null, hourly_tx_cap: null });
    const set = JSON.parse(
      await out('--json', 'group', 'limits', world.groupId, '--daily', '10', '--hourly', '5'),
    );
    expect(set).toMatchObject({ daily_limit: '10', hourly_tx_cap: 5, spent_last_24h: '0' });
    const lifted = JSON.parse(await out('--json', 'group', 'limits', world.groupId, '--hourly', 'none'));
    // The proposal's execution answers the limits now in force.
    expect(lifted).toMatchObject({ daily_limit: '10', hourly_tx_cap: null });
    const executed = await out('proposals', 'list', world.groupId, '--status', 'executed');
    expect(executed).toContain('group.limits');
    expect(JSON.parse(await out('--json', 'group', 'limits', world.groupId))).toMatchObject({
      daily_limit: '10',
      hourly_tx_cap: null,
    });
    await expect(out('group', 'limits', world.groupId, '--hourly', 'ten')).rejects.toMatchObject({
      stderr: expect.stringContaining('--hourly must be a whole number or none'),
    });
    // Lift the daily limit again for the suites after (a proposal, signed here).
    await out('group', 'limits', world.groupId, '--daily', 'none');
  });
});

describe('tokenops group guard', () => {
  it("reads the group's guard rules, adds one at once from a file, removes them by a proposal signed in the same command", async () => {
    expect(JSON.parse(await out('--json', 'group', 'guard', world.groupId))).toEqual({
      group_config_pda: world.groupId,
      rules: [],
    });
    const dir = mkdtempSync(join(tmpdir(), 'cli-guard-'));
    const file = join(dir, 'rules.json');
    const velocity = { kind: 'velocity', factor: 5, min_count: 10, action: 'hold' };
    writeFileSync(file, JSON.stringify({ rules: [velocity] }));
    const set = JSON.parse(await out('--json', 'group', 'guard', world.groupId, '--rules', file));
    expect(set).toEqual({ group_config_pda: world.groupId, rules: [velocity] });
    // A bad rule: the service's answer names the field.
    writeFileSync(file, JSON.stringify([{ ...velocity, factor: 0 }]));
    await expect(out('group', 'guard', world.groupId, '--rules', file)).rejects.toMatchObject({
      stderr: expect.stringContaining('/rules/0/factor'),
    });
    writeFileSync(file, 'not json');
    await expect(out('group', 'guard', world.groupId, '--rules', file)).rejects.toMatchObject({
      stderr: expect.stringContaining('is not JSON'),
    });
    const removed = JSON.parse(await out('--json', 'group', 'guard', world.groupId, '--rules', 'none'));
    expect(removed).toEqual({ group_config_pda: world.groupId, rules: [] });
    expect(await out('proposals', 'list', world.groupId, '--status', 'executed')).toContain('group.guard');
  });
});
