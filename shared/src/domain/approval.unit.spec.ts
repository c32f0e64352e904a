import Big from 'big.js';
import bs58 from 'bs58';
import {
  AGENT_A,
  AGENT_B,
  GROUP,
  LIMITS,
  MINUTE,
  OWNER,
  T0,
  VENDOR,
  VENDOR_ENTRY,
  VENUE,
  agent,
  group,
  groupEvents,
  registered,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { DeciderSpecification } from '@tokenops/testing/domain/specification';
import { derivedSigner } from '../chain/keys';
import { thrownBy } from '@tokenops/testing/errors';
import {
  approvalMessage,
  approvalRule,
  approvalView,
  approvalsFold,
  decideApprove,
  decideExpire,
  decideReject,
  decideRejectAgentHolds,
  foldApprovals,
  groupApprovalPolicy,
  parseApprovalId,
  refusedHold,
  statusAt,
} from './approval';
import {
  DEFAULT_APPROVAL_TTL_SECONDS,
  MAX_APPROVAL_TTL_SECONDS,
  decideSetApprovalPolicy,
  policyFromData,
  type SetApprovalPolicy,
} from './approval-policy';
import { dailyRemaining, hourlyRemaining } from './agent';
import type { AgentEvent, ApprovalEvent, ApprovalRequested, GroupEvent } from './events';
import type { LimitsData } from './limits';
import { decideIntent, simulateIntent, type IntentCommand } from './intent';

const ALICE = derivedSigner('approvals', 'alice');
const BOB = derivedSigner('approvals', 'bob');
const CAROL = derivedSigner('approvals', 'carol');
const MALLORY = derivedSigner('approvals', 'mallory');
const sign = (signer: typeof ALICE, message: string) =>
  bs58.encode(signer.sign(Buffer.from(message, 'utf8')));

/** The group, with Alice, Bob and Carol its approvers (an approval policy names only members who approve). */
const team = (): GroupEvent[] => [
  ...groupEvents(),
  ...[ALICE, BOB, CAROL].map((s): GroupEvent => ({
    type: 'member.added',
    data: { group_id: GROUP, wallet: s.address, role: 'approver', at: T0 },
  })),
];
const teamGroup = () => group(team());
const policy = (p: Omit<SetApprovalPolicy, 'now'>): GroupEvent[] =>
  decideSetApprovalPolicy({ ...p, now: T0 }, teamGroup());
const groupWith = (p?: Omit<SetApprovalPolicy, 'now'>) => group([...team(), ...(p ? policy(p) : [])]);
const agentA = (limits: LimitsData = LIMITS) => agent([registered(AGENT_A, limits)]);

/** The decision of `cmd` for agent A in a group with policy `p`. */
const decide = (cmd: IntentCommand, p?: Omit<SetApprovalPolicy, 'now'>, limits?: LimitsData) =>
  decideIntent(cmd, { group: groupWith(p), agent: agentA(limits) });

/** A held transfer's approval request, as the decision records it. */
function held(p: Omit<SetApprovalPolicy, 'now'>, amount = '60'): ApprovalRequested['data'] {
  const d = decide(transfer(amount, { idempotency_key: 'k-1' }), p);
  return d.approval!;
}

const approvals = DeciderSpecification.for({ ...approvalsFold, decide: decideApprove });
const two = { threshold: '50', approvers: [ALICE.address, BOB.address, CAROL.address], quorum: 2 };

describe('approvals: which spends are held', () => {
  it('a spend above the group threshold that passes every check is accepted, reserved and held', () => {
    const d = decide(transfer('60', { idempotency_key: 'k-1' }), { threshold: '50' });
    expect(d.accepted).toBe(true);
    const accepted = d.agentEvents[0]!;
    expect(accepted.type).toBe('intent.accepted');
    const approval = d.approval!;
    expect(approval).toMatchObject({
      group_id: GROUP,
      agent_id: AGENT_A,
      action: 'transfer',
      amount: '60',
      value_in_base: '60',
      counterparty: AGENT_B,
      idempotency_key: 'k-1',
      reason: 'threshold',
      approvers: [OWNER],
      quorum: 1,
      requested_at: T0,
      expires_at: T0 + 86_400_000,
    });
    expect(accepted.data).toMatchObject({
      held: { approval_id: approval.approval_id, expires_at: T0 + 86_400_000 },
    });
    // The message binds every term an approver approves.
    for (const term of [
      GROUP,
      AGENT_A,
      'transfer',
      '60',
      AGENT_B,
      'k-1',
      new Date(T0 + 86_400_000).toISOString(),
    ])
      expect(approval.message).toContain(term);
    // Held, it counts against the daily limit and the hourly cap like any accepted intent.
    const after = agent([registered(AGENT_A), accepted as AgentEvent]);
    expect(dailyRemaining(after, T0).toFixed()).toBe('940');
    expect(hourlyRemaining(after, T0)).toBe(9);
  });

  it('a spend at the threshold, or with no policy, is not held', () => {
    expect(decide(transfer('50'), { threshold: '50' }).approval).toBeUndefined();
    expect(decide(transfer('60')).approval).toBeUndefined();
  });

  it('a spend another check blocks is blocked, not held', () => {
    const d = decide(transfer('150'), { threshold: '50' });
    expect(d.accepted).toBe(false);
    expect(d.code).toBe('per_tx_limit_exceeded');
    expect(d.approval).toBeUndefined();
  });

  it("the agent's own approval_threshold overrides the group's, both ways", () => {
    const limits = { ...LIMITS, approval_threshold: '10' };
    expect(decide(transfer('20'), { threshold: '50' }, limits).approval?.reason).toBe('threshold');
    expect(decide(transfer('20'), undefined, limits).approval?.approvers).toEqual([OWNER]);
    const higher = { ...LIMITS, approval_threshold: '80' };
    expect(decide(transfer('60'), { threshold: '50' }, higher).approval).toBeUndefined();
  });

  it('swaps and deposits are held by value; a withdrawal never is', () => {
    const venue = { counterparty: VENUE, value: new Big('70') };
    expect(
      decide(transfer('70', { ...venue, action: 'deposit' }), { threshold: '50' }).approval,
    ).toBeDefined();
    expect(
      decide(transfer('70', { ...venue, action: 'withdraw' }), { threshold: '50' }).approval,
    ).toBeUndefined();
  });

  it('new_recipients holds the first spend to an entry, and not once a person approved one to it', () => {
    const p = { threshold: null, new_recipients: true };
    const first = decide(transfer('5', { counterparty: VENDOR }), p);
    expect(first.approval).toMatchObject({ reason: 'new_recipient', budget_entry_id: VENDOR_ENTRY });
    expect(first.budgetEvents.map((e) => e.type)).toEqual(['budget.reserved']);
    const request = first.approval!;
    const approvedOnce = foldApprovals([
      { type: 'approval.requested', data: request },
      {
        type: 'approval.decided',
        data: {
          approval_id: request.approval_id,
          intent_id: request.intent_id,
          group_id: GROUP,
          agent_id: AGENT_A,
          decision: 'approved',
          by: [OWNER],
          at: T0,
        },
      },
    ]);
    const again = decideIntent(transfer('5', { counterparty: VENDOR }), {
      group: groupWith(p),
      agent: agentA(),
      approvals: approvedOnce,
    });
    expect(again.approval).toBeUndefined();
  });

  it('simulate says approval_required for a spend that would be held, and appends nothing', () => {
    const sim = simulateIntent(transfer('60'), { group: groupWith({ threshold: '50' }), agent: agentA() });
    expect(sim).toMatchObject({ would_succeed: false, reason: 'approval_required' });
    expect(
      simulateIntent(transfer('40'), { group: groupWith({ threshold: '50' }), agent: agentA() })
        .would_succeed,
    ).toBe(true);
  });
});

describe('approvals: the quorum, rejection and expiry', () => {
  it('two of three: one signature records it, a second distinct approver approves', () => {
    const req = held(two);
    const requested: ApprovalEvent = { type: 'approval.requested', data: req };
    const id = req.approval_id;
    const s1 = sign(ALICE, req.message);
    approvals
      .given([requested])
      .when({ approval_id: id, approver: ALICE.address, signature: s1, now: T0 + MINUTE })
      .then([
        {
          type: 'approval.signed',
          data: {
            approval_id: id,
            intent_id: req.intent_id,
            group_id: GROUP,
            approver: ALICE.address,
            signature: s1,
            at: T0 + MINUTE,
          },
        },
      ]);
    const signedA = decideApprove(
      { approval_id: id, approver: ALICE.address, signature: s1, now: T0 + MINUTE },
      foldApprovals([requested]),
    );
    // The same approver twice counts once.
    approvals
      .given([requested, ...signedA])
      .when({ approval_id: id, approver: ALICE.address, signature: s1, now: T0 + 2 * MINUTE })
      .thenNothing();
    const s2 = sign(BOB, req.message);
    const quorum = decideApprove(
      { approval_id: id, approver: BOB.address, signature: s2, now: T0 + 2 * MINUTE },
      foldApprovals([requested, ...signedA]),
    );
    expect(quorum.map((e) => e.type)).toEqual(['approval.signed', 'approval.decided']);
    expect(quorum[1]!.data).toMatchObject({ decision: 'approved', by: [ALICE.address, BOB.address] });
    // Decided once: a third approver is refused.
    approvals
      .given([requested, ...signedA, ...quorum])
      .when({ approval_id: id, approver: CAROL.address, signature: sign(CAROL, req.message), now: T0 })
      .thenThrows('conflict');
  });

  it('a non-approver is forbidden; a signature by another wallet, or of another message, is refused', () => {
    const req = held(two);
    const given = approvals.given([{ type: 'approval.requested', data: req }]);
    const id = req.approval_id;
    given
      .when({ approval_id: id, approver: MALLORY.address, signature: sign(MALLORY, req.message), now: T0 })
      .thenThrows('forbidden');
    given
      .when({ approval_id: id, approver: ALICE.address, signature: sign(BOB, req.message), now: T0 })
      .thenThrows('validation_error', '/signature');
    given
      .when({ approval_id: id, approver: ALICE.address, signature: sign(ALICE, `${req.message} `), now: T0 })
      .thenThrows('validation_error', '/signature');
    given
      .when({ approval_id: 'nope', approver: ALICE.address, signature: 'x', now: T0 })
      .thenThrows('not_found');
  });

  it('any approver rejects; a non-approver may not; nothing is decided twice', () => {
    const req = held(two);
    const requested: ApprovalEvent = { type: 'approval.requested', data: req };
    const rejects = DeciderSpecification.for({ ...approvalsFold, decide: decideReject }).given([requested]);
    rejects
      .when({ approval_id: req.approval_id, approver: CAROL.address, reason: 'too big', now: T0 + MINUTE })
      .then([
        {
          type: 'approval.decided',
          data: {
            approval_id: req.approval_id,
            intent_id: req.intent_id,
            group_id: GROUP,
            agent_id: AGENT_A,
            decision: 'rejected',
            by: [CAROL.address],
            reason: 'too big',
            at: T0 + MINUTE,
          },
        },
      ]);
    rejects
      .when({ approval_id: req.approval_id, approver: MALLORY.address, now: T0 })
      .thenThrows('forbidden');
    const rejected = decideReject(
      { approval_id: req.approval_id, approver: CAROL.address, now: T0 },
      foldApprovals([requested]),
    );
    approvals
      .given([requested, ...rejected])
      .when({
        approval_id: req.approval_id,
        approver: ALICE.address,
        signature: sign(ALICE, req.message),
        now: T0,
      })
      .thenThrows('conflict');
  });

  it('expiry: nothing before the ttl; expired at it, once; a late signature records the expiry instead', () => {
    const req = held({ ...two, ttl_seconds: 60 });
    const requested: ApprovalEvent = { type: 'approval.requested', data: req };
    const expires = DeciderSpecification.for({ ...approvalsFold, decide: decideExpire }).given([requested]);
    expires.when({ approval_id: req.approval_id, now: T0 + 59_999 }).thenNothing();
    const expired = decideExpire(
      { approval_id: req.approval_id, now: T0 + 60_000 },
      foldApprovals([requested]),
    );
    expect(expired).toEqual([
      expect.objectContaining({
        type: 'approval.decided',
        data: expect.objectContaining({ decision: 'expired', by: [] }),
      }),
    ]);
    expect(statusAt(foldApprovals([requested]).approvals.get(req.approval_id)!, T0 + 60_000)).toBe('expired');
    DeciderSpecification.for({ ...approvalsFold, decide: decideExpire })
      .given([requested, ...expired])
      .when({ approval_id: req.approval_id, now: T0 + 70_000 })
      .thenNothing();
    const late = decideApprove(
      {
        approval_id: req.approval_id,
        approver: ALICE.address,
        signature: sign(ALICE, req.message),
        now: T0 + 60_000,
      },
      foldApprovals([requested]),
    );
    expect(late.map((e) => e.type)).toEqual(['approval.decided']);
    expect(late[0]!.data).toMatchObject({ decision: 'expired', by: [] });
  });

  it("a revocation rejects the agent's pending approvals, and only its pending ones", () => {
    const a1 = held(two);
    const a2 = held(two, '70');
    const other = { ...held(two, '80'), agent_id: AGENT_B, approval_id: `${GROUP}_other` };
    const given: ApprovalEvent[] = [a1, a2, other].map((data) => ({ type: 'approval.requested', data }));
    const rejectA1 = decideReject(
      { approval_id: a1.approval_id, approver: ALICE.address, now: T0 },
      foldApprovals(given),
    );
    const decided = decideRejectAgentHolds(
      { agent_id: AGENT_A, reason: 'agent revoked', now: T0 + MINUTE },
      foldApprovals([...given, ...rejectA1]),
    );
    expect(decided.map((e) => [e.data.approval_id, (e.data as { decision: string }).decision])).toEqual([
      [a2.approval_id, 'rejected'],
    ]);
    expect(decided[0]!.data).toEqual({
      approval_id: a2.approval_id,
      intent_id: a2.intent_id,
      group_id: GROUP,
      agent_id: AGENT_A,
      decision: 'rejected',
      by: [],
      reason: 'agent revoked',
      at: T0 + MINUTE,
    });
  });

  it('a rejection without a reason records none', () => {
    const req = held(two);
    const [rejected] = decideReject(
      { approval_id: req.approval_id, approver: BOB.address, now: T0 },
      foldApprovals([{ type: 'approval.requested', data: req }]),
    );
    expect(rejected!.data).not.toHaveProperty('reason');
    expect(rejected!.data).toMatchObject({ decision: 'rejected', by: [BOB.address] });
  });

  it('its status at a time: pending until it expires, then expired; a decided one stays as decided', () => {
    const req = held({ ...two, ttl_seconds: 60 });
    const requested: ApprovalEvent = { type: 'approval.requested', data: req };
    const pending = foldApprovals([requested]).approvals.get(req.approval_id)!;
    expect(statusAt(pending, T0 + 59_999)).toBe('pending');
    expect(statusAt(pending, T0 + 60_000)).toBe('expired');
    const rejected = foldApprovals([
      requested,
      ...decideReject(
        { approval_id: req.approval_id, approver: BOB.address, now: T0 },
        foldApprovals([requested]),
      ),
    ]).approvals.get(req.approval_id)!;
    expect(statusAt(rejected, T0)).toBe('rejected');
    expect(statusAt(rejected, T0 + 120_000)).toBe('rejected');
  });

  it('what a decision does to the held intent: a rejection or an expiry fails it, saying which; an approval leaves it to run', () => {
    const req = held({ ...two, ttl_seconds: 60 });
    const id = req.approval_id;
    const requested: ApprovalEvent = { type: 'approval.requested', data: req };
    const after = (events: ApprovalEvent[]) => foldApprovals([requested, ...events]).approvals.get(id)!;
    const state = foldApprovals([requested]);
    expect(refusedHold(after([]))).toBeUndefined();
    const approve = (who: typeof ALICE, st = state) =>
      decideApprove(
        { approval_id: id, approver: who.address, signature: sign(who, req.message), now: T0 },
        st,
      );
    const first = approve(ALICE);
    const approved = after([...first, ...approve(BOB, foldApprovals([requested, ...first]))]);
    expect(approved.status).toBe('approved');
    expect(refusedHold(approved)).toBeUndefined();
    expect(
      refusedHold(
        after(decideReject({ approval_id: id, approver: BOB.address, reason: 'too big', now: T0 }, state)),
      ),
    ).toEqual({
      status: 'failed',
      code: 'approval_rejected',
      message: `Approval ${id} was rejected (too big); nothing was sent.`,
    });
    expect(
      refusedHold(after(decideReject({ approval_id: id, approver: BOB.address, now: T0 }, state))),
    ).toEqual({
      status: 'failed',
      code: 'approval_rejected',
      message: `Approval ${id} was rejected; nothing was sent.`,
    });
    expect(refusedHold(after(decideExpire({ approval_id: id, now: T0 + 60_000 }, state)))).toEqual({
      status: 'failed',
      code: 'approval_expired',
      message: `Approval ${id} expired undecided; nothing was sent.`,
    });
  });

  it('a person-approved spend makes its counterparty known; a rejected one does not', () => {
    const req = held(two);
    const requested: ApprovalEvent = { type: 'approval.requested', data: req };
    const rejected = decideReject(
      { approval_id: req.approval_id, approver: BOB.address, now: T0 },
      foldApprovals([requested]),
    );
    expect(foldApprovals([requested, ...rejected]).approvedCounterparties.has(req.counterparty)).toBe(false);
    const approve = (who: typeof ALICE, events: ApprovalEvent[]) =>
      decideApprove(
        { approval_id: req.approval_id, approver: who.address, signature: sign(who, req.message), now: T0 },
        foldApprovals(events),
      );
    const one = approve(ALICE, [requested]);
    const both = [requested, ...one, ...approve(BOB, [requested, ...one])];
    expect(foldApprovals(both).approvedCounterparties.has(req.counterparty)).toBe(true);
  });
});

describe('approvals: the policy in force, and how an approval was decided', () => {
  it('none set holds nothing, with the owner to approve; once set, it is what was set; an agent’s own threshold overrides', () => {
    expect(groupApprovalPolicy(group())).toEqual({
      threshold: null,
      approvers: [OWNER],
      quorum: 1,
      ttlSeconds: DEFAULT_APPROVAL_TTL_SECONDS,
      newRecipients: false,
    });
    const set = groupWith({ threshold: '50', approvers: [ALICE.address], quorum: 1, ttl_seconds: 600 });
    expect(groupApprovalPolicy(set)).toEqual({
      threshold: new Big(50),
      approvers: [ALICE.address],
      quorum: 1,
      ttlSeconds: 600,
      newRecipients: false,
    });
    const own = agentA({ ...LIMITS, approval_threshold: '7' });
    expect(approvalRule(set, own)).toEqual({ ...groupApprovalPolicy(set), threshold: new Big(7) });
    expect(approvalRule(set, agentA())).toEqual(groupApprovalPolicy(set));
  });

  it('says when, who rejected and why: a person, the service, an expiry by time, an approval', () => {
    const req = held(two);
    const requested: ApprovalEvent = { type: 'approval.requested', data: req };
    const view = (events: ApprovalEvent[], now = T0 + MINUTE) =>
      approvalView(foldApprovals(events).approvals.get(req.approval_id)!, now);
    const decision = (events: ApprovalEvent[], now?: number) => {
      const { status, decided_at, rejected_by, reason } = view(events, now);
      return { status, decided_at, rejected_by, reason };
    };
    expect(decision([requested])).toEqual({
      status: 'pending',
      decided_at: null,
      rejected_by: null,
      reason: null,
    });
    const at = T0 + 2 * MINUTE;
    const byCarol = decideReject(
      { approval_id: req.approval_id, approver: CAROL.address, reason: 'too big', now: at },
      foldApprovals([requested]),
    );
    expect(decision([requested, ...byCarol])).toEqual({
      status: 'rejected',
      decided_at: new Date(at).toISOString(),
      rejected_by: CAROL.address,
      reason: 'too big',
    });
    const byService = decideRejectAgentHolds(
      { agent_id: AGENT_A, reason: 'agent revoked', now: at },
      foldApprovals([requested]),
    );
    expect(decision([requested, ...byService])).toMatchObject({ rejected_by: null, reason: 'agent revoked' });
    // Its time ran out and nothing recorded it yet: expired at its expiry.
    expect(decision([requested], req.expires_at + 1)).toEqual({
      status: 'expired',
      decided_at: new Date(req.expires_at).toISOString(),
      rejected_by: null,
      reason: null,
    });
    const signed = decideApprove(
      { approval_id: req.approval_id, approver: ALICE.address, signature: sign(ALICE, req.message), now: at },
      foldApprovals([requested]),
    );
    const approved = decideApprove(
      { approval_id: req.approval_id, approver: BOB.address, signature: sign(BOB, req.message), now: at + 1 },
      foldApprovals([requested, ...signed]),
    );
    expect(decision([requested, ...signed, ...approved])).toEqual({
      status: 'approved',
      decided_at: new Date(at + 1).toISOString(),
      rejected_by: null,
      reason: null,
    });
    // Who signed, in order, and the key the agent retries with.
    expect(view([requested, ...signed, ...approved])).toMatchObject({
      approved_by: [ALICE.address, BOB.address],
      idempotency_key: 'k-1',
    });
  });
});

describe('approvals: the policy', () => {
  it('defaults: the owner approves alone, a day to decide', () => {
    expect(policy({ threshold: 5 })[0]!.data).toMatchObject({
      threshold: '5',
      approvers: [OWNER],
      quorum: 1,
      ttl_seconds: 86_400,
      new_recipients: false,
    });
  });

  it.each([
    [{ threshold: '5', approvers: [ALICE.address], quorum: 2 }, '/quorum'],
    [{ threshold: '5', approvers: [ALICE.address], quorum: 0 }, '/quorum'],
    [{ threshold: '5', approvers: [ALICE.address, ALICE.address], quorum: 1 }, '/approvers'],
    [{ threshold: '5', approvers: ['not-a-wallet'] }, '/approvers'],
    [{ threshold: '5', ttl_seconds: 0 }, '/ttl_seconds'],
  ])('refuses %j at %s', (input, path) => {
    const err = thrownBy(() => decideSetApprovalPolicy({ ...input, now: T0 }, teamGroup()));
    expect(err.code).toBe('validation_error');
    expect(err.details?.map((d) => d.path)).toEqual([path]);
  });

  it.each([
    [
      {
        threshold: '5',
        approvers: Array.from({ length: 21 }, (_, i) => derivedSigner('a', String(i)).address),
      },
      '/approvers',
    ],
    [{ threshold: '5', quorum: 1.5 }, '/quorum'],
    [{ threshold: '5', ttl_seconds: MAX_APPROVAL_TTL_SECONDS + 1 }, '/ttl_seconds'],
    [{ threshold: '5', ttl_seconds: 1.5 }, '/ttl_seconds'],
    [{ threshold: '5', new_recipients: 'yes' as unknown as boolean }, '/new_recipients'],
  ])('refuses %j at %s, and nothing else', (input, path) => {
    const err = thrownBy(() => decideSetApprovalPolicy({ ...input, now: T0 }, teamGroup()));
    expect(err.code).toBe('validation_error');
    expect(err.details?.map((d) => d.path)).toEqual([path]);
  });

  it('takes no threshold as none, and names the threshold in an amount it cannot read', () => {
    expect(decideSetApprovalPolicy({ now: T0 }, teamGroup())[0]!.data.threshold).toBeNull();
    expect(
      thrownBy(() => decideSetApprovalPolicy({ threshold: 'lots', now: T0 }, teamGroup())).message,
    ).toMatch(/^The threshold /);
    expect(() =>
      policyFromData({ ...decideSetApprovalPolicy({ now: T0 }, teamGroup())[0]!.data, threshold: 'lots' }),
    ).toThrow(/^The threshold /);
  });

  it('refuses approvers of whom one is not a wallet', () => {
    const err = thrownBy(() =>
      decideSetApprovalPolicy({ approvers: [ALICE.address, 'not-a-wallet'], now: T0 }, teamGroup()),
    );
    expect(err.details?.map((d) => d.path)).toEqual(['/approvers']);
  });

  it('refuses a negative threshold as an amount, and no approvers (so no quorum either)', () => {
    expect(thrownBy(() => decideSetApprovalPolicy({ threshold: '-1', now: T0 }, teamGroup())).code).toBe(
      'invalid_amount',
    );
    const err = thrownBy(() =>
      decideSetApprovalPolicy({ threshold: '5', approvers: [], now: T0 }, teamGroup()),
    );
    expect(err.details?.map((d) => d.path)).toEqual(['/approvers', '/quorum']);
  });

  it('names only members who approve: a viewer or a stranger is refused, saying which', () => {
    const viewer = derivedSigner('approvals', 'viewer').address;
    const g = group([
      ...team(),
      { type: 'member.added', data: { group_id: GROUP, wallet: viewer, role: 'viewer', at: T0 } },
    ]);
    const err = thrownBy(() =>
      decideSetApprovalPolicy({ approvers: [ALICE.address, viewer, MALLORY.address], now: T0 }, g),
    );
    expect(err.code).toBe('validation_error');
    expect(err.details).toEqual([
      {
        path: '/approvers',
        issue: `must be members of the group with role approver or admin (${viewer}, ${MALLORY.address} are not)`,
      },
    ]);
  });

  it('takes the bounds themselves: 20 approvers, a quorum of all of them, a week to decide, no threshold', () => {
    const approvers = Array.from({ length: 20 }, (_, i) => derivedSigner('a', String(i)).address);
    const [set] = decideSetApprovalPolicy(
      {
        threshold: null,
        approvers,
        quorum: 20,
        ttl_seconds: MAX_APPROVAL_TTL_SECONDS,
        new_recipients: true,
        now: T0,
      },
      group([
        ...groupEvents(),
        ...approvers.map((wallet): GroupEvent => ({
          type: 'member.added',
          data: { group_id: GROUP, wallet, role: 'approver', at: T0 },
        })),
      ]),
    );
    expect(set!.data).toMatchObject({
      threshold: null,
      approvers,
      quorum: 20,
      ttl_seconds: MAX_APPROVAL_TTL_SECONDS,
      new_recipients: true,
    });
    expect(
      decideSetApprovalPolicy({ threshold: '0', ttl_seconds: 1, now: T0 }, teamGroup())[0]!.data,
    ).toMatchObject({
      threshold: '0',
      ttl_seconds: 1,
    });
    expect(DEFAULT_APPROVAL_TTL_SECONDS).toBe(86_400);
  });

  it('an approval id names its group and intent', () => {
    const req = held({ threshold: '50' });
    expect(parseApprovalId(req.approval_id)).toEqual({ groupId: GROUP, intentId: req.intent_id });
  });

  it.each(['', 'no-underscore', '_0190abcd', 'G!_0190abcd', '!G_0190abcd', 'G_0190ABCD', 'G_', 'G_01 90'])(
    'an id of another form names nothing: %j',
    (id) => expect(parseApprovalId(id)).toBeUndefined(),
  );

  const terms = {
    approval_id: 'G_i-1',
    group_id: 'G',
    agent_id: 'A',
    action: 'transfer' as const,
    amount: '12.5',
    mint: 'M',
    counterparty: 'C',
    idempotency_key: 'k-1',
    expires_at: Date.UTC(2026, 10, 26, 12),
  };

  it('what an approver signs names every term of the spend, one a line', () => {
    expect(approvalMessage(terms)).toBe(
      [
        'TokenOps approval of a held spend',
        'approval: G_i-1',
        'group: G',
        'agent: A',
        'action: transfer',
        'amount: 12.5',
        'mint: M',
        'counterparty: C',
        'idempotency_key: k-1',
        'expires_at: 2026-11-26T12:00:00.000Z',
      ].join('\n'),
    );
  });

  it('a spend without an idempotency key signs an empty one', () => {
    const { idempotency_key: _, ...keyless } = terms;
    expect(approvalMessage(keyless).split('\n')[8]).toBe('idempotency_key: ');
  });
});
