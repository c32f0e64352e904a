/**
 * The governance delay: a proposal with its quorum is `ready`, and the service executes it once the
 * delay has passed, with nobody signing again (the proposals' scheduler of every API process). The
 * secrets such an execution makes (an invitation code) are shown to its proposer once, and to nobody
 * else; they are never in the log.
 */
import {
  enact,
  invitation,
  signIn,
  signProposal,
  startWorld,
  until,
  type Operator,
  type ProposalReply,
  type World,
} from '@tokenops/testing/harness';

let world: World;
let alice: Operator;
let bob: Operator;
beforeAll(async () => {
  world = await startWorld();
  alice = world.operator;
  bob = await signIn(world.client);
}, 60_000);
afterAll(async () => {
  await world?.close();
});

const groupPath = () => `/api/v1/orchestrator/groups/${world.groupId}`;
const proposal = (id: string, who: Operator = alice) =>
  world.client.call<ProposalReply & { ready_at: string | null }>(
    'GET',
    `/api/v1/orchestrator/proposals/${id}`,
    {
      token: who.token,
    },
  );
const secret = (id: string, who: Operator) =>
  world.client.call<{ invitation_code?: string; error?: string }>(
    'GET',
    `/api/v1/orchestrator/proposals/${id}/secret`,
    { token: who.token },
  );

describe('a governance delay', () => {
  it('an invitation signed without a delay shows its code to the signer, and to nobody after', async () => {
    const invited = await invitation(world.client, alice, world.groupId);
    expect(invited.body.invitation_code).toMatch(/^inv_/);
    const { proposals } = (
      await world.client.call<{ proposals: ProposalReply[] }>(
        'GET',
        `${groupPath()}/proposals?status=executed`,
        {
          token: alice.token,
        },
      )
    ).body;
    const executed = proposals.find((p) => p.action === 'agent.invite')!;
    expect(executed.result).toEqual(
      expect.objectContaining({ agent_wallet_pda: invited.body.agent_wallet_pda }),
    );
    expect(JSON.stringify(executed.result)).not.toContain(invited.body.invitation_code);
    expect(await secret(executed.proposal_id, alice)).toMatchObject({
      status: 409,
      body: { error: 'conflict' },
    });
  });

  it('holds a ready proposal for its delay, then the service executes it; the proposer reads the code once', async () => {
    const joined = await enact(world.client, [alice], 'POST', `${groupPath()}/members`, {
      wallet: bob.wallet.address,
      role: 'admin',
    });
    expect(joined.body.status).toBe('executed');
    const delayed = await enact(world.client, [alice], 'PUT', `${groupPath()}/governance`, {
      delay_seconds: 2,
    });
    expect(delayed.body).toMatchObject({ status: 'executed', result: { delay_seconds: 2 } });

    const proposed = await world.client.call<ProposalReply>('POST', `${groupPath()}/invitations`, {
      token: alice.token,
      body: { label: 'delayed' },
    });
    expect(proposed.status).toBe(202);
    const signedAt = Date.now();
    const signed = await signProposal(world.client, alice, proposed.body);
    expect(signed).toMatchObject({ status: 200, body: { status: 'ready', result: null } });
    const readyAt = Date.parse((signed.body as unknown as { ready_at: string }).ready_at);
    expect(readyAt).toBeGreaterThanOrEqual(signedAt + 1_000);
    expect(await secret(proposed.body.proposal_id, alice)).toMatchObject({ status: 409 });

    // Nobody signs again: the service executes it once the delay has passed.
    const executed = await until(async () => {
      const p = (await proposal(proposed.body.proposal_id)).body;
      return p.status === 'executed' && p;
    }, 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(readyAt);
    const agentId = (executed.result as { agent_wallet_pda: string }).agent_wallet_pda;
    const group = await world.client.call<{ agents: { agent_wallet_pda: string; status: string }[] }>(
      'GET',
      groupPath(),
      { token: alice.token },
    );
    expect(group.body.agents).toContainEqual(
      expect.objectContaining({ agent_wallet_pda: agentId, status: 'invited' }),
    );

    // Its code: to the proposer, once; never to another admin; never in the log.
    expect(await secret(proposed.body.proposal_id, bob)).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    const shown = await secret(proposed.body.proposal_id, alice);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const code = shown.body.invitation_code!;
    expect(await secret(proposed.body.proposal_id, alice)).toMatchObject({
      status: 409,
      body: { error: 'conflict' },
    });
    expect(JSON.stringify((await world.log()).map((e) => [e.type, e.data]))).not.toContain(code);
    const registered = await world.client.call<{ agent_wallet_pda: string }>('POST', '/api/v1/register', {
      body: { invitation_code: code },
    });
    expect(registered).toMatchObject({ status: 200, body: { agent_wallet_pda: agentId } });
  }, 60_000);
});
