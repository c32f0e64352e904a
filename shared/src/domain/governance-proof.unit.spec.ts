/**
 * The proof in the log: an auditor replaying a group's events finds every widening change that does
 * not carry a quorum of valid admin signatures under the policy then in force, and nothing else.
 */
import bs58 from 'bs58';
import { derivedSigner } from '../chain/keys';
import { GovernanceAuditor } from './governance-proof';
import { proposalMessage } from './proposal';

const ALICE = derivedSigner('proof', 'alice');
const BOB = derivedSigner('proof', 'bob');
const MALLORY = derivedSigner('proof', 'mallory');
const GROUP = derivedSigner('proof', 'group').address;
const T0 = Date.UTC(2026, 11, 1);

let n = 0;
const id = () => `e-${++n}`;
const ev = (type: string, data: Record<string, unknown>) => ({
  id: id(),
  type,
  data: { group_id: GROUP, at: T0, ...data },
});

/** A proposal of `action` signed by `signers`, then executed naming them: its events, with the change's between. */
function proposal(
  pid: string,
  action: string,
  params: Record<string, unknown>,
  signers: { address: string; sign(m: Uint8Array): Uint8Array }[],
  change: { type: string; data: Record<string, unknown> }[],
  tamper?: { message?: string },
) {
  const fields = { proposal_id: pid, group_id: GROUP, action, params, expires_at: T0 + 86_400_000 };
  const message = proposalMessage(fields);
  return [
    ev('governance.proposed', { ...fields, message: tamper?.message ?? message, proposed_by: ALICE.address }),
    ...signers.map((s) =>
      ev('governance.signed', {
        proposal_id: pid,
        wallet: s.address,
        signature: bs58.encode(s.sign(Buffer.from(message, 'utf8'))),
      }),
    ),
    ...change.map((c) => ev(c.type, { ...c.data, proposal_id: pid })),
    ev('governance.executed', { proposal_id: pid, signers: signers.map((s) => s.address), quorum: 1 }),
  ];
}

const created = ev('group.created', { owner_wallet: ALICE.address, base_mint: 'm', default_limits: {} });
const entry = (address: string) => ({
  type: 'whitelist.entry_added',
  data: {
    group_id: GROUP,
    entry_id: address,
    address,
    type: 1,
    approved_amount: '5',
    ttl_expires_at: T0 + 1,
  },
});

function audit(events: { id: string; type: string; data: unknown }[]) {
  const auditor = new GovernanceAuditor();
  for (const e of events) auditor.observe(e);
  return auditor.result();
}

describe('the governance proof', () => {
  const team = [
    created,
    // The aggregator's entry at creation, before any proposal: not governed yet.
    ev('whitelist.entry_added', { entry_id: 'agg', address: 'agg', type: 2 }),
    ...proposal(
      'p1',
      'member.add',
      { wallet: BOB.address, role: 'admin' },
      [ALICE],
      [{ type: 'member.added', data: { group_id: GROUP, wallet: BOB.address, role: 'admin' } }],
    ),
    // Raising the quorum to 2 is signed under the quorum of 1 then in force: valid.
    ...proposal(
      'p2',
      'governance.set',
      { quorum: 2 },
      [ALICE],
      [
        {
          type: 'governance.policy_set',
          data: { group_id: GROUP, quorum: 2, delay_seconds: 0, safe_destination: ALICE.address },
        },
      ],
    ),
  ];

  it('holds for changes each signed by the quorum then in force', () => {
    const proof = audit([...team, ...proposal('p3', 'allow_list.add', {}, [ALICE, BOB], [entry('vendor')])]);
    expect(proof).toEqual({ checked: 3, invalid: [] });
  });

  it('names an execution short of the quorum, a signer who is no admin, and a message that is not its fields', () => {
    const proof = audit([
      ...team,
      ...proposal('p3', 'allow_list.add', {}, [ALICE], [entry('one')]),
      ...proposal('p4', 'allow_list.add', {}, [ALICE, MALLORY], [entry('two')]),
      ...proposal('p5', 'allow_list.add', {}, [ALICE, BOB], [entry('three')], { message: 'sign me' }),
    ]);
    expect(proof.checked).toBe(5);
    expect(proof.invalid.map((f) => [f.proposal_id, f.type, f.reason])).toEqual([
      ['p3', 'governance.executed', 'no_quorum'],
      ['p4', 'governance.executed', 'no_quorum'],
      ['p5', 'governance.executed', 'message_differs'],
      ['p3', 'whitelist.entry_added', 'not_executed'],
      ['p4', 'whitelist.entry_added', 'not_executed'],
      ['p5', 'whitelist.entry_added', 'not_executed'],
    ]);
    expect(proof.invalid[0]!.message).toBe('1 valid admin signature of the 2 the policy then in force asked');
  });

  it('names a widening change with no proposal once the group is governed, and a change naming none made', () => {
    const proof = audit([
      ...team,
      ev('whitelist.entry_added', {
        entry_id: 'x',
        address: 'x',
        type: 1,
        approved_amount: '1',
        ttl_expires_at: T0,
      }),
      ev('auditor.granted', { wallet: MALLORY.address }),
      ev('whitelist.entry_removed', { entry_id: 'agg', address: 'agg' }), // narrowing: at once
      ev('member.added', { wallet: MALLORY.address, role: 'admin', proposal_id: 'never' }),
    ]);
    expect(proof.invalid.map((f) => [f.type, f.reason])).toEqual([
      ['whitelist.entry_added', 'no_proposal'],
      ['auditor.granted', 'no_proposal'],
      ['member.added', 'not_executed'],
    ]);
  });

  it('names each always-widening kind made without a proposal, from the first proposal on, agents’ own entries and webhooks aside', () => {
    const widening: [string, Record<string, unknown>][] = [
      ['agent.invited', { agent_id: 'a2', invitation_hash: 'h', invitation_expires_at: T0, limits: {} }],
      ['member.added', { wallet: MALLORY.address, role: 'viewer' }],
      ['governance.policy_set', { quorum: 1, delay_seconds: 0, safe_destination: MALLORY.address }],
      ['group.unfrozen', {}],
      ['agent.unfrozen', { agent_id: 'a2' }],
      ['webhook.registered', { webhook_id: 'wh_fleet', url: 'https://x.example', event_types: [] }],
    ];
    const pending = ev('governance.proposed', {
      proposal_id: 'open',
      action: 'allow_list.add',
      params: {},
      message: 'm',
      proposed_by: ALICE.address,
      expires_at: T0 + 1,
    });
    const agentsOwn = ev('whitelist.entry_added', { entry_id: 'a2', address: 'a2', type: 0 });
    const agentsWebhook = ev('webhook.registered', {
      webhook_id: 'wh_own',
      agent_id: 'a2',
      url: 'https://x.example',
    });
    const before = ev('whitelist.entry_added', { entry_id: 'early', address: 'early', type: 1 });
    const proof = audit([
      created,
      before, // before any proposal: the group was not governed yet
      pending, // governed from its first proposal, executed or not
      agentsOwn,
      agentsWebhook,
      ...widening.map(([type, data]) => ev(type, data)),
    ]);
    expect(proof.invalid.map((f) => [f.type, f.reason, f.message])).toEqual(
      widening.map(([type]) => [
        type,
        'no_proposal',
        `${type} widens what agents may spend, and no proposal made it`,
      ]),
    );
  });

  it('says why, in words: an execution of no proposal, a changed message, one signature short, a change never executed', () => {
    const proof = audit([
      ...team,
      ev('governance.executed', { proposal_id: 'ghost', signers: [ALICE.address], quorum: 1 }),
      ...proposal('p5', 'allow_list.add', {}, [ALICE, BOB], [entry('three')], { message: 'sign me' }),
      ...proposal('p6', 'allow_list.add', {}, [BOB, BOB], [entry('four')]),
    ]);
    expect(proof.invalid.map((f) => f.message)).toEqual([
      'no proposal ghost was made in the log',
      'the message signed is not what the proposal’s fields say',
      '1 valid admin signature of the 2 the policy then in force asked',
      'whitelist.entry_added names proposal p5, which did not execute with its quorum',
      'whitelist.entry_added names proposal p6, which did not execute with its quorum',
    ]);
    const none = audit([...team, ...proposal('p7', 'allow_list.add', {}, [MALLORY], [entry('five')])]);
    expect(none.invalid[0]!.message).toBe('0 valid admin signatures of the 2 the policy then in force asked');
  });

  it('checks an execution recorded before its change (a store appending one stream at a time) alike', () => {
    const events = proposal('p3', 'allow_list.add', {}, [ALICE, BOB], [entry('vendor')]);
    const executedFirst = [...events.slice(0, 3), events[4]!, events[3]!];
    expect(audit([...team, ...executedFirst])).toEqual({ checked: 3, invalid: [] });
  });
});
