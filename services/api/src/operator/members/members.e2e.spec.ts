/**
 * The team: the creator is the first admin; members are added, given another role and removed by
 * proposals the admins sign; each member signs in with its own wallet, sees the groups it belongs to
 * with its role and acts within it (a viewer changes nothing, an approver decides held spends and
 * nothing else). The governance policy is read by any member and changed by a proposal; once its
 * quorum is two, one admin alone changes nothing that widens.
 */
import {
  enact,
  signIn,
  signProposal,
  startWorld,
  type Operator,
  type ProposalReply,
  type World,
} from '@tokenops/testing/harness';
import { generateSigner } from '@tokenops/shared';

let world: World;
let alice: Operator; // the creator
beforeAll(async () => {
  world = await startWorld({ rateLimitPerMinute: 10_000 });
  alice = world.operator;
}, 60_000);
afterAll(async () => {
  await world?.close();
});

const groupPath = () => `/api/v1/orchestrator/groups/${world.groupId}`;
const get = <T = Record<string, unknown>>(path: string, who: Operator) =>
  world.client.call<T>('GET', path, { token: who.token });
type Members = { group_config_pda: string; members: { wallet: string; role: string }[] };
type Governance = { quorum: number; delay_seconds: number; safe_destination: string; admins: number };
type Listed = { groups: { group_config_pda: string; role: string }[] };

const addMember = (wallet: string, role: string, admins: Operator[] = [alice]) =>
  enact(world.client, admins, 'POST', `${groupPath()}/members`, { wallet, role });

describe('members and roles', () => {
  let bob: Operator; // an admin
  let carol: Operator; // a viewer
  let dave: Operator; // an approver

  beforeAll(async () => {
    [bob, carol, dave] = await Promise.all([
      signIn(world.client),
      signIn(world.client),
      signIn(world.client),
    ]);
  });

  it('starts with the creator as its one admin, quorum 1, no delay, the creator as the safe destination', async () => {
    expect((await get<Members>(`${groupPath()}/members`, alice)).body).toEqual({
      group_config_pda: world.groupId,
      members: [{ wallet: alice.wallet.address, role: 'admin' }],
    });
    expect((await get<Governance>(`${groupPath()}/governance`, alice)).body).toEqual({
      group_config_pda: world.groupId,
      quorum: 1,
      delay_seconds: 0,
      safe_destination: alice.wallet.address,
      admins: 1,
    });
    expect((await get<Listed>('/api/v1/orchestrator/groups', alice)).body.groups).toContainEqual(
      expect.objectContaining({ group_config_pda: world.groupId, role: 'admin' }),
    );
  });

  it('adds a member by a proposal: 202 and nothing until the admin signs, then it is in', async () => {
    const proposed = await world.client.call<ProposalReply>('POST', `${groupPath()}/members`, {
      token: alice.token,
      body: { wallet: bob.wallet.address, role: 'admin' },
    });
    expect(proposed.status).toBe(202);
    expect(proposed.body).toMatchObject({
      status: 'pending',
      action: 'member.add',
      params: { wallet: bob.wallet.address, role: 'admin' },
      signatures_required: 1,
    });
    expect((await get(groupPath(), bob)).status).toBe(403);
    expect((await get<Listed>('/api/v1/orchestrator/groups', bob)).body.groups).toEqual([]);

    const signed = await signProposal(world.client, alice, proposed.body);
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({
      status: 'executed',
      result: {
        members: [
          { wallet: alice.wallet.address, role: 'admin' },
          { wallet: bob.wallet.address, role: 'admin' },
        ],
      },
    });
    expect((await get(groupPath(), bob)).status).toBe(200);
    expect((await get<Listed>('/api/v1/orchestrator/groups', bob)).body.groups).toEqual([
      expect.objectContaining({ group_config_pda: world.groupId, role: 'admin' }),
    ]);
  });

  it('a viewer reads everything and changes nothing', async () => {
    const agent = await world.agent({}, 0);
    expect((await addMember(carol.wallet.address, 'viewer')).body.status).toBe('executed');
    expect((await get<Listed>('/api/v1/orchestrator/groups', carol)).body.groups).toEqual([
      expect.objectContaining({ group_config_pda: world.groupId, role: 'viewer' }),
    ]);
    for (const path of [
      groupPath(),
      `${groupPath()}/members`,
      `${groupPath()}/governance`,
      `${groupPath()}/proposals`,
      `${groupPath()}/usage`,
    ])
      expect({ path, status: (await get(path, carol)).status }).toEqual({ path, status: 200 });
    const attempts: [string, string, unknown][] = [
      [
        'POST',
        `${groupPath()}/whitelist`,
        { address: generateSigner().address, type: 1, approved_amount: 5, ttl_seconds: 600 },
      ],
      ['POST', `${groupPath()}/invitations`, {}],
      ['POST', `${groupPath()}/freeze`, {}],
      [
        'POST',
        `${groupPath()}/webhooks`,
        { url: 'https://example.com/hook', event_types: ['agent.revoked'] },
      ],
      ['PATCH', `/api/v1/orchestrator/agents/${agent.id}/limits`, { per_tx_limit: 1 }],
      ['POST', `/api/v1/orchestrator/agents/${agent.id}/rotate-key`, {}],
      ['POST', `/api/v1/orchestrator/agents/${agent.id}/revoke`, {}],
      ['POST', `/api/v1/orchestrator/agents/${agent.id}/emergency-withdraw`, {}],
      ['POST', `${groupPath()}/members`, { wallet: carol.wallet.address, role: 'admin' }],
      ['PUT', `${groupPath()}/governance`, { quorum: 1 }],
    ];
    for (const [method, path, body] of attempts) {
      const refused = await world.client.call(method, path, { token: carol.token, body });
      expect({ method, path, status: refused.status, error: refused.body.error }).toEqual({
        method,
        path,
        status: 403,
        error: 'forbidden',
      });
    }
    expect((await get<Members>(`${groupPath()}/members`, alice)).body.members).toHaveLength(3);
    expect((await get<{ frozen: unknown }>(groupPath(), alice)).body.frozen).toBeNull();
    expect((await world.client.call('GET', '/api/v1/balance', { token: agent.key })).status).toBe(200);
  });

  it('an approver decides held spends and nothing else; an approval policy names only members who approve', async () => {
    const outsider = generateSigner().address;
    const refused = await world.client.call('PUT', `${groupPath()}/approval-policy`, {
      token: alice.token,
      body: { threshold: '50', approvers: [dave.wallet.address, outsider] },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(
      'must be members of the group with role approver or admin',
    );

    expect((await addMember(dave.wallet.address, 'approver')).body.status).toBe('executed');
    const set = await world.client.call('PUT', `${groupPath()}/approval-policy`, {
      token: alice.token,
      body: { threshold: '50', approvers: [dave.wallet.address] },
    });
    expect(set.status).toBe(200);
    expect((await get(`${groupPath()}/approvals`, dave)).status).toBe(200);
    const invite = await world.client.call('POST', `${groupPath()}/invitations`, {
      token: dave.token,
      body: {},
    });
    expect(invite).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });

  it('a member change the group cannot take is refused at once, and proposes nothing', async () => {
    const before = (await get<{ proposals: unknown[] }>(`${groupPath()}/proposals`, alice)).body.proposals
      .length;
    const again = await world.client.call('POST', `${groupPath()}/members`, {
      token: alice.token,
      body: { wallet: carol.wallet.address, role: 'viewer' },
    });
    expect(again).toMatchObject({ status: 409, body: { error: 'conflict' } });
    const stranger = await world.client.call('DELETE', `${groupPath()}/members/${generateSigner().address}`, {
      token: alice.token,
    });
    expect(stranger).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const badRole = await world.client.call('POST', `${groupPath()}/members`, {
      token: alice.token,
      body: { wallet: generateSigner().address, role: 'owner' },
    });
    expect(badRole).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    const tooMany = await world.client.call('PUT', `${groupPath()}/governance`, {
      token: alice.token,
      body: { quorum: 3 },
    });
    expect(tooMany).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    expect(
      (await get<{ proposals: unknown[] }>(`${groupPath()}/proposals`, alice)).body.proposals,
    ).toHaveLength(before);
    const outsider = await signIn(world.client);
    expect((await get(`${groupPath()}/members`, outsider)).status).toBe(403);
  });

  it('with a quorum of two, one admin alone widens nothing; the second signature executes it', async () => {
    const quorum = await enact(world.client, [alice], 'PUT', `${groupPath()}/governance`, {
      quorum: 2,
    });
    expect(quorum.body).toMatchObject({ status: 'executed', result: { quorum: 2, admins: 2 } });

    const proposed = await world.client.call<ProposalReply>('POST', `${groupPath()}/members`, {
      token: bob.token,
      body: { wallet: carol.wallet.address, role: 'approver' },
    });
    expect(proposed).toMatchObject({ status: 202, body: { signatures_required: 2 } });
    const first = await signProposal(world.client, bob, proposed.body);
    expect(first.body).toMatchObject({ status: 'pending', signatures: [{ wallet: bob.wallet.address }] });
    const twice = await signProposal(world.client, bob, proposed.body);
    expect(twice.body.status).toBe('pending');
    expect((await get<Listed>('/api/v1/orchestrator/groups', carol)).body.groups[0]!.role).toBe('viewer');

    const second = await signProposal(world.client, alice, proposed.body);
    expect(second.body).toMatchObject({ status: 'executed' });
    expect((await get<Listed>('/api/v1/orchestrator/groups', carol)).body.groups[0]!.role).toBe('approver');

    // Removing an admin would leave fewer admins than the quorum: refused at once.
    const lonely = await world.client.call('DELETE', `${groupPath()}/members/${bob.wallet.address}`, {
      token: alice.token,
    });
    expect(lonely).toMatchObject({ status: 400, body: { error: 'validation_error' } });
  });

  it('removes a member by a proposal: from then on it reads nothing', async () => {
    const removed = await enact(
      world.client,
      [alice, bob],
      'DELETE',
      `${groupPath()}/members/${carol.wallet.address}`,
    );
    expect(removed.body.status).toBe('executed');
    expect((await get(groupPath(), carol)).status).toBe(403);
    expect((await get<Listed>('/api/v1/orchestrator/groups', carol)).body.groups).toEqual([]);
  });
});
