/**
 * Proposals under parallel requests, over HTTP (on the server topology, spread over two API
 * instances): with a quorum of two, both admins signing at once execute the change once and show its
 * secret to one of them; ten signatures of one admin at once count once; a signature racing a cancel
 * ends the proposal one way, and the change is made only with an execution. Each is decided on the
 * write model (the proposals stream, at the revision read), whichever instance takes the request.
 * The same races against the expiry and two schedulers, with a clock the test moves, are
 * shared/src/application/proposals.int.spec.ts.
 */
import { generateSigner } from '@tokenops/shared';
import {
  enact,
  signIn,
  signProposal,
  startWorld,
  type Operator,
  type ProposalReply,
  type World,
} from '@tokenops/testing/harness';

let world: World;
let bob: Operator;
const group = () => `/api/v1/orchestrator/groups/${world.groupId}`;

beforeAll(async () => {
  world = await startWorld();
  bob = await signIn(world.client);
  const operator = world.operator;
  const added = await enact(world.client, [operator], 'POST', `${group()}/members`, {
    wallet: bob.wallet.address,
    role: 'admin',
  });
  expect(added.body).toMatchObject({ status: 'executed' });
  const quorum = await enact(world.client, [operator], 'PUT', `${group()}/governance`, { quorum: 2 });
  expect(quorum.body).toMatchObject({ status: 'executed', result: { quorum: 2 } });
}, 60_000);
afterAll(async () => {
  await world?.close();
});

/** A proposal made by the operator (`202`). */
async function proposed(path: string, body: unknown): Promise<ProposalReply> {
  const r = await world.client.call<ProposalReply>('POST', `${group()}${path}`, {
    token: world.operator.token,
    body,
  });
  expect(r.status).toBe(202);
  return r.body;
}
const allowListed = () =>
  proposed('/whitelist', {
    address: generateSigner().address,
    type: 1,
    approved_amount: 10,
    ttl_seconds: 3_600,
  });

/** What the log holds of a proposal: its signatures, how it ended, and the changes it made. */
async function recorded(proposalId: string) {
  const of = (await world.log()).filter(
    (e) => (e.data as { proposal_id?: string }).proposal_id === proposalId,
  );
  const ends = ['governance.executed', 'governance.cancelled', 'governance.expired', 'governance.failed'];
  return {
    signers: of
      .filter((e) => e.type === 'governance.signed')
      .map((e) => (e.data as { wallet: string }).wallet),
    ends: of.filter((e) => ends.includes(e.type)).map((e) => e.type),
    changes: of.filter((e) => !e.type.startsWith('governance.')).map((e) => e.type),
  };
}

it('both admins signing at once: executed once, and its secret shown to one of them only', async () => {
  for (let round = 0; round < 3; round++) {
    const invite = await proposed('/invitations', {});
    const answers = await Promise.all([
      signProposal(world.client, world.operator, invite),
      signProposal(world.client, bob, invite),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const shown = answers.filter(
      (a) => (a.body.result as { invitation_code?: string } | null)?.invitation_code,
    );
    expect(shown).toHaveLength(1);
    expect(shown[0]!.body.status).toBe('executed');
    const log = await recorded(invite.proposal_id);
    expect(log.signers.sort()).toEqual([world.operator.wallet.address, bob.wallet.address].sort());
    expect(log.ends).toEqual(['governance.executed']);
    // The invitation's events: the agent, and its own entry on the allow-list (other agents pay it).
    expect(log.changes).toEqual(['agent.invited', 'whitelist.entry_added']);
  }
});

it('ten signatures of one admin at once count once: the proposal waits for the other admin', async () => {
  const entry = await allowListed();
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => signProposal(world.client, world.operator, entry)),
  );
  for (const a of answers) expect(a.body).toMatchObject({ status: 'pending', signatures_required: 2 });
  expect(await recorded(entry.proposal_id)).toEqual({
    signers: [world.operator.wallet.address],
    ends: [],
    changes: [],
  });
  const second = await signProposal(world.client, bob, entry);
  expect(second.body).toMatchObject({ status: 'executed', result: { address: entry.params.address } });
  expect(await recorded(entry.proposal_id)).toMatchObject({
    ends: ['governance.executed'],
    changes: ['whitelist.entry_added'],
  });
});

it('the last signature racing a cancel: cancelled or executed, never both, and the entry only with the execution', async () => {
  for (let round = 0; round < 5; round++) {
    const entry = await allowListed();
    expect((await signProposal(world.client, world.operator, entry)).body.status).toBe('pending');
    const [signed, cancelled] = await Promise.all([
      signProposal(world.client, bob, entry),
      world.client.call<ProposalReply>('POST', `/api/v1/orchestrator/proposals/${entry.proposal_id}/cancel`, {
        token: world.operator.token,
        body: { reason: 'second thoughts' },
      }),
    ]);
    const { ends, changes } = await recorded(entry.proposal_id);
    if (ends[0] === 'governance.cancelled') {
      expect({ ends, changes, cancelled: cancelled.status }).toEqual({
        ends: ['governance.cancelled'],
        changes: [],
        cancelled: 200,
      });
      expect(signed.body.status === 'cancelled' || signed.status === 409).toBe(true);
    } else {
      expect({ ends, changes, signed: signed.body.status, cancelled: cancelled.status }).toEqual({
        ends: ['governance.executed'],
        changes: ['whitelist.entry_added'],
        signed: 'executed',
        cancelled: 409,
      });
    }
  }
});
