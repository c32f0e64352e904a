import Big from 'big.js';
import bs58 from 'bs58';
import { approvalPolicyWidens } from './approval-policy';
import { derivedSigner } from '../chain/keys';
import { codeOf, thrownBy } from '@tokenops/testing/errors';
import { T0, SECOND } from '@tokenops/testing/domain/fixtures';
import type { GovernanceEvent, GroupCreated, ProposalEvent } from './events';
import {
  authorizeMember,
  decideAddMember,
  decideFreezeGroup,
  decideRemoveMember,
  decideSetGovernance,
  decideUnfreezeGroup,
  foldGovernance,
  initialGovernanceState,
  limitsWiden,
  MAX_DELAY_SECONDS,
  thresholdWidens,
  type GovernanceState,
} from './governance';
import {
  PROPOSAL_TTL_MS,
  decideCancel,
  decideExecuted,
  decideExpireProposal,
  decideFailed,
  decidePropose,
  decideShowSecret,
  decideSign,
  foldProposals,
  parseProposalId,
  proposalIdOf,
  proposalMessage,
  proposalView,
  proposalsDue,
  SIGNER_GRACE_MS,
  isDue,
} from './proposal';

const CREATOR = derivedSigner('governance', 'creator');
const ALICE = derivedSigner('governance', 'alice');
const BOB = derivedSigner('governance', 'bob');
const VIEWER = derivedSigner('governance', 'viewer');
const STRANGER = derivedSigner('governance', 'stranger');
const sign = (who: typeof ALICE, message: string) => bs58.encode(who.sign(Buffer.from(message, 'utf8')));

const GROUP = 'team';
const created: GroupCreated = {
  type: 'group.created',
  data: {
    group_id: GROUP,
    owner_wallet: CREATOR.address,
    base_mint: STRANGER.address,
    default_limits: { per_tx_limit: '10', daily_limit: '100', hourly_tx_cap: 5 },
    at: T0,
  },
};
const member = (wallet: string, role: 'admin' | 'approver' | 'viewer'): GovernanceEvent => ({
  type: 'member.added',
  data: { group_id: GROUP, wallet, role, at: T0 },
});
const policy = (quorum: number, delay_seconds = 0): GovernanceEvent => ({
  type: 'governance.policy_set',
  data: { group_id: GROUP, quorum, delay_seconds, safe_destination: CREATOR.address, at: T0 },
});
/** The creator and Alice and Bob as admins, a viewer, at a quorum of `quorum`. */
const team = (quorum = 2, delay = 0) =>
  foldGovernance([
    created,
    member(ALICE.address, 'admin'),
    member(BOB.address, 'admin'),
    member(VIEWER.address, 'viewer'),
    policy(quorum, delay),
  ]);

describe('governance: members, roles and the policy', () => {
  it('makes the creator the first admin, with quorum 1, no delay, and its own wallet as the safe destination', () => {
    const g = foldGovernance([created]);
    expect([...g.members]).toEqual([[CREATOR.address, 'admin']]);
    expect(g.policy).toEqual({ quorum: 1, delaySeconds: 0, safeDestination: CREATOR.address });
  });

  it('lets each role do only what it may: a viewer reads, an approver decides held spends, an admin changes', () => {
    const g = team();
    const can = (wallet: string, what: 'admin' | 'approve' | 'read') =>
      codeOf(() => authorizeMember(g, wallet, what));
    const approver = foldGovernance([created, member(BOB.address, 'approver')]);
    expect([
      can(VIEWER.address, 'read'),
      can(VIEWER.address, 'approve'),
      can(VIEWER.address, 'admin'),
    ]).toEqual(['ok', 'forbidden', 'forbidden']);
    expect(codeOf(() => authorizeMember(approver, BOB.address, 'approve'))).toBe('ok');
    expect(codeOf(() => authorizeMember(approver, BOB.address, 'admin'))).toBe('forbidden');
    expect(can(ALICE.address, 'admin')).toBe('ok');
    expect(can(STRANGER.address, 'read')).toBe('forbidden');
    expect(codeOf(() => authorizeMember(foldGovernance([]), ALICE.address, 'read'))).toBe('not_found');
  });

  it('adds a member or changes its role; the same role again records nothing; a bad role or wallet is a 400', () => {
    const g = foldGovernance([created]);
    const added = decideAddMember({ wallet: ALICE.address, role: 'approver', now: T0 }, g);
    expect(added).toEqual([
      {
        type: 'member.added',
        data: { group_id: GROUP, wallet: ALICE.address, role: 'approver', at: T0 },
      },
    ]);
    const after = foldGovernance([created, ...added]);
    expect(decideAddMember({ wallet: ALICE.address, role: 'approver', now: T0 }, after)).toEqual([]);
    expect(
      thrownBy(() => decideAddMember({ wallet: ALICE.address, role: 'owner', now: T0 }, g)).details,
    ).toEqual([{ path: '/role', issue: 'must be one of admin, approver, viewer' }]);
    expect(codeOf(() => decideAddMember({ wallet: 'not-an-address', role: 'viewer', now: T0 }, g))).toBe(
      'validation_error',
    );
  });

  it('never leaves fewer admins than the quorum, nor no admin at all', () => {
    const g = team(3);
    expect(codeOf(() => decideRemoveMember({ wallet: ALICE.address, now: T0 }, g))).toBe('validation_error');
    expect(codeOf(() => decideAddMember({ wallet: BOB.address, role: 'viewer', now: T0 }, g))).toBe(
      'validation_error',
    );
    expect(codeOf(() => decideRemoveMember({ wallet: VIEWER.address, now: T0 }, g))).toBe('ok');
    expect(
      codeOf(() => decideRemoveMember({ wallet: CREATOR.address, now: T0 }, foldGovernance([created]))),
    ).toBe('conflict');
    expect(codeOf(() => decideRemoveMember({ wallet: STRANGER.address, now: T0 }, g))).toBe('not_found');
    expect(codeOf(() => decideSetGovernance({ quorum: 4, now: T0 }, g))).toBe('validation_error');
  });

  it('keeps the fields a governance change leaves out, refuses bad ones with their paths, and records nothing for no change', () => {
    const g = team(2);
    expect(decideSetGovernance({ delay_seconds: 3600, now: T0 }, g)).toEqual([
      {
        type: 'governance.policy_set',
        data: { group_id: GROUP, quorum: 2, delay_seconds: 3600, safe_destination: CREATOR.address, at: T0 },
      },
    ]);
    expect(decideSetGovernance({ quorum: 2, now: T0 }, g)).toEqual([]);
    expect(
      thrownBy(() =>
        decideSetGovernance({ quorum: 0, delay_seconds: -1, safe_destination: 'x', now: T0 }, g),
      ).details?.map((d) => d.path),
    ).toEqual(['/quorum', '/delay_seconds', '/safe_destination']);
  });

  it('freezes at once (twice is once) and lifts the freeze only when frozen', () => {
    const g = team();
    const frozen = decideFreezeGroup({ by: ALICE.address, reason: 'leak', now: T0 }, g);
    expect(frozen).toEqual([
      { type: 'group.frozen', data: { group_id: GROUP, by: ALICE.address, reason: 'leak', at: T0 } },
    ]);
    const state = foldGovernance([created, ...frozen]);
    expect(state.frozen).toEqual({ by: ALICE.address, reason: 'leak', at: T0 });
    expect(decideFreezeGroup({ by: CREATOR.address, now: T0 }, state)).toEqual([]);
    const lifted = decideUnfreezeGroup({ now: T0 + SECOND }, state);
    expect(foldGovernance([created, ...frozen, ...lifted]).frozen).toBeUndefined();
    expect(codeOf(() => decideUnfreezeGroup({ now: T0 }, g))).toBe('conflict');
  });
});

describe('governance: which changes widen', () => {
  const limits = { per_tx_limit: new Big(10), daily_limit: new Big(100), hourly_tx_cap: 5 };
  it('counts a limit raised, and only that, as widening', () => {
    expect(limitsWiden(limits, { ...limits, daily_limit: new Big('100.000001') })).toBe(true);
    expect(limitsWiden(limits, { ...limits, hourly_tx_cap: 6 })).toBe(true);
    expect(
      limitsWiden(limits, { per_tx_limit: new Big(1), daily_limit: new Big(100), hourly_tx_cap: 0 }),
    ).toBe(false);
  });

  it('counts a threshold raised or lifted as widening, a threshold set or lowered as narrowing', () => {
    expect(thresholdWidens(new Big(50), new Big(51))).toBe(true);
    expect(thresholdWidens(new Big(50), null)).toBe(true);
    expect(thresholdWidens(null, new Big(50))).toBe(false);
    expect(thresholdWidens(new Big(50), new Big(49))).toBe(false);
  });

  it('counts a first approval policy and a stricter one as narrowing, anything looser as widening', () => {
    const p = {
      threshold: new Big(50),
      approvers: [ALICE.address, BOB.address],
      quorum: 1,
      ttlSeconds: 3600,
      newRecipients: true,
    };
    expect(approvalPolicyWidens(undefined, p)).toBe(false);
    expect(approvalPolicyWidens(p, { ...p, threshold: new Big(10), quorum: 2 })).toBe(false);
    expect(approvalPolicyWidens(p, { ...p, approvers: [BOB.address, ALICE.address] })).toBe(false);
    expect(approvalPolicyWidens(p, { ...p, threshold: new Big(60) })).toBe(true);
    expect(approvalPolicyWidens(p, { ...p, approvers: [ALICE.address] })).toBe(true);
    expect(approvalPolicyWidens(p, { ...p, approvers: [ALICE.address, BOB.address, CREATOR.address] })).toBe(
      true,
    );
    expect(approvalPolicyWidens({ ...p, quorum: 2 }, p)).toBe(true);
    expect(approvalPolicyWidens(p, { ...p, newRecipients: false })).toBe(true);
    expect(approvalPolicyWidens(p, { ...p, threshold: new Big(10), newRecipients: false })).toBe(true);
  });
});

describe('proposals', () => {
  const ID = proposalIdOf(GROUP, '0b6f2c1e-8a8d-4c5e-9a59-2f6a3c1d7e90');
  const params = { wallet: STRANGER.address, role: 'viewer' };
  const propose = (governance = team()) =>
    decidePropose(
      { proposal_id: ID, action: 'member.add', params, proposed_by: ALICE.address, governance, now: T0 },
      foldProposals([]),
    );
  const made = propose();
  const message = made[0]!.data.message;
  const signed = (who: typeof ALICE, at: number, governance = team(), past: ProposalEvent[] = made) =>
    decideSign(
      { proposal_id: ID, wallet: who.address, signature: sign(who, message), governance, now: at },
      foldProposals(past),
    );

  it('names its group in its id, and what is signed names the group, the change, its parameters and expiry', () => {
    expect(parseProposalId(ID)).toEqual({ groupId: GROUP });
    expect(parseProposalId('no-group-in-it')).toBeUndefined();
    expect(message).toBe(
      proposalMessage({
        proposal_id: ID,
        group_id: GROUP,
        action: 'member.add',
        params,
        expires_at: T0 + PROPOSAL_TTL_MS,
      }),
    );
    expect(message.split('\n')).toEqual([
      'TokenOps governance proposal',
      `proposal: ${ID}`,
      `group: ${GROUP}`,
      'action: member.add',
      `params: {"role":"viewer","wallet":"${STRANGER.address}"}`,
      `expires_at: ${new Date(T0 + PROPOSAL_TTL_MS).toISOString()}`,
    ]);
  });

  it('is made by an admin only', () => {
    const g = team();
    for (const who of [VIEWER, STRANGER])
      expect(
        codeOf(() =>
          decidePropose(
            {
              proposal_id: ID,
              action: 'member.add',
              params,
              proposed_by: who.address,
              governance: g,
              now: T0,
            },
            foldProposals([]),
          ),
        ),
      ).toBe('forbidden');
  });

  it('is pending until distinct admins reach the quorum, then ready and due after the delay', () => {
    const g = team(2, 60);
    const one = signed(ALICE, T0 + SECOND, g);
    const again = signed(ALICE, T0 + 2 * SECOND, g, [...made, ...one]);
    expect(again).toEqual([]);
    const afterOne = foldProposals([...made, ...one]);
    expect(proposalView(afterOne.proposals.get(ID)!, g, T0 + 2 * SECOND)).toMatchObject({
      status: 'pending',
      signatures_required: 2,
      signatures: [{ wallet: ALICE.address, signed_at: new Date(T0 + SECOND).toISOString() }],
      ready_at: null,
      result: null,
    });
    const two = signed(BOB, T0 + 10 * SECOND, g, [...made, ...one]);
    const state = foldProposals([...made, ...one, ...two]);
    const readyAt = T0 + 10 * SECOND + 60 * SECOND;
    expect(proposalView(state.proposals.get(ID)!, g, T0 + 11 * SECOND)).toMatchObject({
      status: 'ready',
      ready_at: new Date(readyAt).toISOString(),
    });
    expect(proposalsDue(state, g, readyAt - 1)).toEqual({ execute: [], expire: [] });
    expect(proposalsDue(state, g, readyAt)).toEqual({ execute: [ID], expire: [] });
    expect(codeOf(() => decideExecuted({ proposal_id: ID, governance: g, now: readyAt - 1 }, state))).toBe(
      'conflict',
    );
    const executed = decideExecuted(
      { proposal_id: ID, result: { wallet: STRANGER.address }, governance: g, now: readyAt },
      state,
    );
    expect(executed[0]!.data).toEqual({
      proposal_id: ID,
      group_id: GROUP,
      signers: [ALICE.address, BOB.address],
      quorum: 2,
      result: { wallet: STRANGER.address },
      at: readyAt,
    });
    const done = foldProposals([...made, ...one, ...two, ...executed]);
    expect(proposalView(done.proposals.get(ID)!, g, readyAt)).toMatchObject({
      status: 'executed',
      result: { wallet: STRANGER.address },
    });
    expect(codeOf(() => signed(CREATOR, readyAt, g, [...made, ...one, ...two, ...executed]))).toBe(
      'conflict',
    );
  });

  it('counts only the admins of the policy in force: a signer removed meanwhile no longer counts', () => {
    const past = [...made, ...signed(ALICE, T0, team(2)), ...signed(BOB, T0, team(2))];
    const state = foldProposals(past);
    expect(isDue(state.proposals.get(ID)!, team(2), T0)).toBe(true);
    // With no delay its signer executes it; the scheduler only after the signer's grace.
    expect(proposalsDue(state, team(2), T0).execute).toEqual([]);
    expect(proposalsDue(state, team(2), T0 + SIGNER_GRACE_MS).execute).toEqual([ID]);
    const withoutBob = foldGovernance([
      created,
      member(ALICE.address, 'admin'),
      member(BOB.address, 'admin'),
      policy(2),
      { type: 'member.removed', data: { group_id: GROUP, wallet: BOB.address, at: T0 } },
    ]);
    expect(proposalView(state.proposals.get(ID)!, withoutBob, T0).status).toBe('pending');
    expect(codeOf(() => decideExecuted({ proposal_id: ID, governance: withoutBob, now: T0 }, state))).toBe(
      'conflict',
    );
  });

  it('takes a signature only from an admin, over its own message', () => {
    const wrong = sign(ALICE, `${message}\nmore`);
    expect(
      thrownBy(() =>
        decideSign(
          { proposal_id: ID, wallet: ALICE.address, signature: wrong, governance: team(), now: T0 },
          foldProposals(made),
        ),
      ).details?.map((d) => d.path),
    ).toEqual(['/signature']);
    expect(
      codeOf(() =>
        decideSign(
          {
            proposal_id: ID,
            wallet: ALICE.address,
            signature: sign(BOB, message),
            governance: team(),
            now: T0,
          },
          foldProposals(made),
        ),
      ),
    ).toBe('validation_error');
    expect(codeOf(() => signed(VIEWER, T0))).toBe('forbidden');
    expect(
      codeOf(() =>
        decideSign(
          { proposal_id: 'nope', wallet: ALICE.address, signature: 'x', governance: team(), now: T0 },
          foldProposals(made),
        ),
      ),
    ).toBe('not_found');
  });

  it('is cancelled by any admin while open, and not after', () => {
    const cancelled = decideCancel(
      { proposal_id: ID, wallet: BOB.address, reason: 'not now', governance: team(), now: T0 + SECOND },
      foldProposals(made),
    );
    const state = foldProposals([...made, ...cancelled]);
    expect(proposalView(state.proposals.get(ID)!, team(), T0 + SECOND)).toMatchObject({
      status: 'cancelled',
      reason: 'not now',
      ready_at: null,
    });
    expect(
      codeOf(() =>
        decideCancel({ proposal_id: ID, wallet: ALICE.address, governance: team(), now: T0 }, state),
      ),
    ).toBe('conflict');
    expect(
      codeOf(() =>
        decideCancel(
          { proposal_id: ID, wallet: VIEWER.address, governance: team(), now: T0 },
          foldProposals(made),
        ),
      ),
    ).toBe('forbidden');
  });

  it('expires unexecuted after seven days: read as expired at once, recorded once, and signing it records the expiry', () => {
    const late = T0 + PROPOSAL_TTL_MS;
    const state = foldProposals(made);
    expect(proposalView(state.proposals.get(ID)!, team(), late - 1).status).toBe('pending');
    expect(proposalView(state.proposals.get(ID)!, team(), late).status).toBe('expired');
    expect(proposalsDue(state, team(), late)).toEqual({ execute: [], expire: [ID] });
    expect(decideExpireProposal({ proposal_id: ID, now: late - 1 }, state)).toEqual([]);
    const expired = decideExpireProposal({ proposal_id: ID, now: late }, state);
    expect(expired).toEqual([
      { type: 'governance.expired', data: { proposal_id: ID, group_id: GROUP, at: late } },
    ]);
    expect(
      decideExpireProposal({ proposal_id: ID, now: late }, foldProposals([...made, ...expired])),
    ).toEqual([]);
    expect(signed(ALICE, late)).toEqual(expired);
  });

  it('ends failed with its reason when its change no longer applies, once', () => {
    const failed = decideFailed(
      { proposal_id: ID, reason: 'the agent was revoked', now: T0 },
      foldProposals(made),
    );
    const state = foldProposals([...made, ...failed]);
    expect(proposalView(state.proposals.get(ID)!, team(), T0)).toMatchObject({
      status: 'failed',
      reason: 'the agent was revoked',
      result: null,
    });
    expect(decideFailed({ proposal_id: ID, reason: 'again', now: T0 }, state)).toEqual([]);
  });
});

describe('governance: the state and events exactly', () => {
  const none = foldGovernance([]);

  it('starts as no group: no members, the default policy, no safe destination', () => {
    expect(initialGovernanceState()).toStrictEqual({
      exists: false,
      groupId: '',
      members: new Map(),
      policy: { quorum: 1, delaySeconds: 0, safeDestination: '' },
    });
  });

  it('refuses every change of a group that does not exist (not_found)', () => {
    const changes = [
      () => decideAddMember({ wallet: ALICE.address, role: 'viewer', now: T0 }, none),
      () => decideRemoveMember({ wallet: ALICE.address, now: T0 }, none),
      () => decideSetGovernance({ quorum: 1, now: T0 }, none),
      () => decideFreezeGroup({ by: ALICE.address, now: T0 }, none),
      () => decideUnfreezeGroup({ now: T0 }, none),
    ];
    expect(changes.map(codeOf)).toEqual(Array(changes.length).fill('not_found'));
  });

  it('says why a member may not act: a stranger is no member, a member lacks the role', () => {
    expect(thrownBy(() => authorizeMember(team(), STRANGER.address, 'read')).message).toBe(
      'This wallet is not a member of the group.',
    );
    expect(thrownBy(() => authorizeMember(team(), VIEWER.address, 'admin')).message).toBe(
      'A member with role viewer may not do this: it needs the role admin or above.',
    );
  });

  it('freezes without a reason when none is given, and the state keeps none', () => {
    const g = foldGovernance([created]);
    const frozen = decideFreezeGroup({ by: ALICE.address, now: T0 }, g);
    expect(frozen).toStrictEqual([
      { type: 'group.frozen', data: { group_id: GROUP, by: ALICE.address, at: T0 } },
    ]);
    expect(foldGovernance([created, ...frozen]).frozen).toStrictEqual({ by: ALICE.address, at: T0 });
  });

  it('names the field a refused member change is about', () => {
    expect(
      thrownBy(() => decideAddMember({ wallet: 'not-an-address', role: 'viewer', now: T0 }, team())).details,
    ).toEqual([{ path: '/wallet', issue: 'must be a base58 Solana address' }]);
    expect(thrownBy(() => decideSetGovernance({ quorum: 4, now: T0 }, team())).details).toEqual([
      { path: '/quorum', issue: 'must be at most the number of admins (3)' },
    ]);
  });

  it('counts a new admin toward the quorum, and a member made admin from another role', () => {
    // Two admins under a quorum of three (as a log may hold it): a third admin makes it whole.
    const short = foldGovernance([
      created,
      member(ALICE.address, 'admin'),
      member(VIEWER.address, 'viewer'),
      policy(3),
    ]);
    expect(decideAddMember({ wallet: BOB.address, role: 'admin', now: T0 }, short)).toHaveLength(1);
    expect(decideAddMember({ wallet: VIEWER.address, role: 'admin', now: T0 }, short)).toHaveLength(1);
    expect(codeOf(() => decideAddMember({ wallet: BOB.address, role: 'viewer', now: T0 }, short))).toBe(
      'validation_error',
    );
  });

  it('removes a member with exactly its event', () => {
    expect(decideRemoveMember({ wallet: VIEWER.address, now: T0 }, team())).toStrictEqual([
      { type: 'member.removed', data: { group_id: GROUP, wallet: VIEWER.address, at: T0 } },
    ]);
  });

  it('takes a quorum of one and a delay up to six days, each alone a change', () => {
    const g = team(2);
    const set = (cmd: Parameters<typeof decideSetGovernance>[0]) => decideSetGovernance(cmd, g)[0]?.data;
    expect(set({ quorum: 1, now: T0 })).toMatchObject({ quorum: 1, delay_seconds: 0 });
    expect(set({ delay_seconds: MAX_DELAY_SECONDS, now: T0 })).toMatchObject({
      delay_seconds: MAX_DELAY_SECONDS,
    });
    expect(thrownBy(() => set({ delay_seconds: MAX_DELAY_SECONDS + 1, now: T0 })).details).toEqual([
      { path: '/delay_seconds', issue: `must be a whole number of seconds from 0 to ${MAX_DELAY_SECONDS}` },
    ]);
    expect(set({ safe_destination: ALICE.address, now: T0 })).toMatchObject({
      quorum: 2,
      safe_destination: ALICE.address,
    });
  });

  it('counts the same limits as no widening', () => {
    const limits = { per_tx_limit: new Big(10), daily_limit: new Big(100), hourly_tx_cap: 5 };
    expect(limitsWiden(limits, { ...limits })).toBe(false);
  });
});

describe('proposals: their record and events exactly', () => {
  const ID = proposalIdOf(GROUP, '5d1e7a40-1f2b-4c3d-8e9f-0a1b2c3d4e5f');
  const asked = {
    proposal_id: ID,
    action: 'group.unfreeze',
    params: {},
    proposed_by: ALICE.address,
    governance: team(2),
    now: T0,
  };
  const made = decidePropose(asked, foldProposals([]));
  const message = made[0]!.data.message;
  const sig = (who: typeof ALICE, past: ProposalEvent[], g: GovernanceState) =>
    decideSign(
      { proposal_id: ID, wallet: who.address, signature: sign(who, message), governance: g, now: T0 },
      foldProposals(past),
    );
  const byAll = (() => {
    const g = team(3);
    let past: ProposalEvent[] = [...made];
    for (const who of [ALICE, BOB, CREATOR]) past = [...past, ...sig(who, past, g)];
    return past;
  })();
  const closedOf = (events: ProposalEvent[]) => foldProposals(events).proposals.get(ID)!.closed;

  it('is proposed once: the same id again is a conflict', () => {
    expect(codeOf(() => decidePropose(asked, foldProposals(made)))).toBe('conflict');
  });

  it('records who cancelled, and a reason only when given', () => {
    const cancelled = decideCancel(
      { proposal_id: ID, wallet: BOB.address, governance: team(2), now: T0 + SECOND },
      foldProposals(made),
    );
    expect(cancelled).toStrictEqual([
      {
        type: 'governance.cancelled',
        data: { proposal_id: ID, group_id: GROUP, by: BOB.address, at: T0 + SECOND },
      },
    ]);
    expect(closedOf([...made, ...cancelled])).toStrictEqual({
      status: 'cancelled',
      at: T0 + SECOND,
      by: BOB.address,
    });
  });

  it('executes with the quorum’s first signers, its result and the secret’s recipient only when there are some', () => {
    const g = team(2);
    const state = foldProposals(byAll);
    const bare = decideExecuted({ proposal_id: ID, governance: g, now: T0 }, state);
    expect(bare).toStrictEqual([
      {
        type: 'governance.executed',
        data: { proposal_id: ID, group_id: GROUP, signers: [ALICE.address, BOB.address], quorum: 2, at: T0 },
      },
    ]);
    expect(closedOf([...byAll, ...bare])).toStrictEqual({
      status: 'executed',
      at: T0,
      signers: [ALICE.address, BOB.address],
    });
    const shown = decideExecuted(
      { proposal_id: ID, result: { ok: true }, secret_shown_to: BOB.address, governance: g, now: T0 },
      state,
    );
    expect(shown[0]!.data).toMatchObject({ result: { ok: true }, secret_shown_to: BOB.address });
    expect(closedOf([...byAll, ...shown])).toStrictEqual({
      status: 'executed',
      at: T0,
      signers: [ALICE.address, BOB.address],
      result: { ok: true },
      secretShownTo: BOB.address,
    });
  });

  it('is due until the very end of its life, not at it; a closed one is neither due nor expired again', () => {
    const g = team(2);
    const state = foldProposals(byAll);
    const end = T0 + PROPOSAL_TTL_MS;
    expect(isDue(state.proposals.get(ID)!, g, end - 1)).toBe(true);
    expect(isDue(state.proposals.get(ID)!, g, end)).toBe(false);
    const executed = [...byAll, ...decideExecuted({ proposal_id: ID, governance: g, now: T0 }, state)];
    expect(proposalsDue(foldProposals(executed), g, end)).toEqual({ execute: [], expire: [] });
    expect(proposalView(foldProposals(executed).proposals.get(ID)!, g, T0).ready_at).toBeNull();
  });

  it('shows a delayed execution’s secrets to its proposer, once, and to nobody else', () => {
    const g = team(2);
    const executed = [
      ...byAll,
      ...decideExecuted({ proposal_id: ID, governance: g, now: T0 }, foldProposals(byAll)),
    ];
    const show = (wallet: string, past: ProposalEvent[], makesSecrets = true) =>
      decideShowSecret({ proposal_id: ID, wallet, makesSecrets, now: T0 + SECOND }, foldProposals(past));
    const once = show(ALICE.address, executed);
    expect(once).toStrictEqual([
      {
        type: 'governance.secret_shown',
        data: { proposal_id: ID, group_id: GROUP, to: ALICE.address, at: T0 + SECOND },
      },
    ]);
    expect(codeOf(() => show(ALICE.address, []))).toBe('not_found');
    expect(codeOf(() => show(BOB.address, executed))).toBe('forbidden');
    expect(codeOf(() => show(ALICE.address, byAll))).toBe('conflict');
    expect(codeOf(() => show(ALICE.address, executed, false))).toBe('not_found');
    expect(thrownBy(() => show(ALICE.address, [...executed, ...once])).message).toBe(
      'Its secrets were shown to you already, once: they are not shown again.',
    );
    const toSigner = [
      ...byAll,
      ...decideExecuted(
        { proposal_id: ID, secret_shown_to: BOB.address, governance: g, now: T0 },
        foldProposals(byAll),
      ),
    ];
    expect(thrownBy(() => show(ALICE.address, toSigner)).message).toBe(
      'Its secrets were shown, once, to the admin whose signature executed it.',
    );
  });
});
