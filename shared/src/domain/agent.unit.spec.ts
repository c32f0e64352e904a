import Big from 'big.js';
import { codeOf, thrownBy } from '@tokenops/testing/errors';
import {
  acceptsKey,
  dailyRemaining,
  decideChangeLimits,
  decideEmergencyStop,
  decideEmergencyWithdrawn,
  decideFreezeAgent,
  decideRegister,
  decideUnfreezeAgent,
  decideRevoke,
  decideRotateKey,
  decideKeyRefused,
  foldAgent,
  heldKey,
  KEY_REFUSAL_INTERVAL_MS,
} from './agent';
import type { AgentEvent } from './events';
import { decideIntent } from './intent';
import { DAY_MS as DAY, HOUR_MS as HOUR } from './time';
import { secretDigest } from './secrets';
import {
  AGENT_A,
  API_KEY,
  GROUP,
  INVITE_SECRET,
  LIMITS,
  MINUTE,
  OWNER,
  SECOND,
  T0,
  accepted,
  agent,
  confirmed,
  failed,
  group,
  registered,
  spent,
  submitting,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { changeLimits, keyRefused, settleIntent, spend } from '@tokenops/testing/domain/deciders';
import { DeciderSpecification } from '@tokenops/testing/domain/specification';

const register = (overrides: Partial<Parameters<typeof decideRegister>[0]> = {}) => ({
  agent_id: AGENT_A,
  invitation_hash: secretDigest(`${INVITE_SECRET}-1`),
  api_key_hash: secretDigest(API_KEY),
  now: T0 + MINUTE,
  ...overrides,
});

describe('the agent', () => {
  describe('registration', () => {
    it('redeems a valid invitation: the limits come from the invitation, only the key digest is kept', () => {
      const events = decideRegister(register(), group(), agent([]));
      expect(events).toEqual([
        {
          type: 'agent.registered',
          data: {
            agent_id: AGENT_A,
            group_id: 'group-1',
            limits: { per_tx_limit: '100', daily_limit: '1000', hourly_tx_cap: 10 },
            api_key_hash: secretDigest(API_KEY),
            at: T0 + MINUTE,
          },
        },
      ]);
      expect(JSON.stringify(events)).not.toContain(API_KEY);
      expect(acceptsKey(foldAgent(events), secretDigest(API_KEY))).toBe(true);
    });

    it.each([
      ['an already redeemed code', register(), [registered(AGENT_A)]],
      ['a wrong secret', register({ invitation_hash: secretDigest('guess') }), []],
      ['an unknown agent', register({ agent_id: OWNER }), []],
      ['an expired invitation (at its exact expiry)', register({ now: T0 + 24 * 60 * MINUTE }), []],
    ])('refuses %s with invalid_invitation_code', (_, cmd, history) => {
      expect(codeOf(() => decideRegister(cmd, group(), agent(history as AgentEvent[])))).toBe(
        'invalid_invitation_code',
      );
    });
  });

  it('rotating the key makes the old key invalid at once', () => {
    const rotated = [
      registered(AGENT_A),
      ...decideRotateKey({ api_key_hash: secretDigest('new'), now: T0 }, agent([registered(AGENT_A)])),
    ];
    expect(rotated[1]!.type).toBe('agent.api_key_rotated');
    expect(acceptsKey(foldAgent(rotated), secretDigest(API_KEY))).toBe(false);
    expect(acceptsKey(foldAgent(rotated), secretDigest('new'))).toBe(true);
  });

  it('a revoked agent is refused its key, cannot be rotated, and revoking again adds nothing', () => {
    const history = [registered(AGENT_A), ...decideRevoke({ now: T0 }, agent([registered(AGENT_A)]))];
    const state = foldAgent(history);
    expect(state.status).toBe('revoked');
    expect(acceptsKey(state, secretDigest(API_KEY))).toBe(false);
    expect(codeOf(() => decideRotateKey({ api_key_hash: 'x', now: T0 }, state))).toBe('conflict');
    expect(decideRevoke({ now: T0 }, state)).toEqual([]);
  });

  it('an emergency stop revokes the agent and fails every accepted intent not yet submitted; a submitted one, or a signed x402 payment, is left to its executor', () => {
    const history = [
      registered(AGENT_A),
      accepted('queued', '5', T0),
      accepted('on-chain', '7', T0),
      accepted('x402-signed', '2', T0),
      {
        type: 'intent.submitting' as const,
        data: {
          intent_id: 'on-chain',
          agent_id: AGENT_A,
          signature: 'sig',
          wire: '',
          last_valid_block_height: '0',
          at: T0,
        },
      },
      {
        type: 'x402.payment_signed' as const,
        data: {
          intent_id: 'x402-signed',
          agent_id: AGENT_A,
          header: 'h',
          signature: 'agent-sig',
          last_valid_block_height: '150',
          at: T0,
        },
      },
    ];
    const events = decideEmergencyStop({ now: T0 }, agent(history));
    expect(events.map((e) => [e.type, (e.data as { intent_id?: string }).intent_id])).toEqual([
      ['agent.revoked', undefined],
      ['intent.failed', 'queued'],
    ]);
    const stopped = foldAgent([...history, ...events]);
    expect(stopped.status).toBe('revoked');
    expect(stopped.intents.get('queued')!.status).toBe('failed');
    expect(stopped.intents.get('on-chain')!.status).toBe('reserved');
    // A payment the resource may still land keeps its room.
    expect(stopped.intents.get('x402-signed')!.status).toBe('reserved');
    // Again on a revoked agent: nothing left to stop.
    expect(decideEmergencyStop({ now: T0 }, stopped)).toEqual([]);
  });

  it('the drain is recorded with what moved, also on a revoked agent', () => {
    const revoked = agent([registered(AGENT_A), ...decideRevoke({ now: T0 }, agent([registered(AGENT_A)]))]);
    const [event] = decideEmergencyWithdrawn(
      { destination: OWNER, moved: [{ mint: 'm', amount: '3', tx_sig: 's' }], redeemed: [], now: T0 },
      revoked,
    );
    expect(event).toEqual({
      type: 'agent.emergency_withdraw',
      data: {
        agent_id: AGENT_A,
        group_id: revoked.groupId,
        destination: OWNER,
        moved: [{ mint: 'm', amount: '3', tx_sig: 's' }],
        redeemed: [],
        at: T0,
      },
    });
    expect(codeOf(() => decideEmergencyStop({ now: T0 }, agent([])))).toBe('not_found');
  });

  it('records who revoked the agent and why: the operator by default, or the emergency withdrawal', () => {
    const active = agent([registered(AGENT_A)]);
    expect(decideRevoke({ now: T0 }, active)).toEqual([
      { type: 'agent.revoked', data: { agent_id: AGENT_A, reason: 'operator', at: T0 } },
    ]);
    expect(decideEmergencyStop({ now: T0 + 1 }, active)).toEqual([
      { type: 'agent.revoked', data: { agent_id: AGENT_A, reason: 'emergency_withdraw', at: T0 + 1 } },
    ]);
    expect(codeOf(() => decideRevoke({ now: T0 }, agent([])))).toBe('not_found');
  });

  it('a key rotation records only the new key’s digest; an unregistered agent has no key to rotate', () => {
    expect(decideRotateKey({ api_key_hash: 'digest-2', now: T0 }, agent([registered(AGENT_A)]))).toEqual([
      { type: 'agent.api_key_rotated', data: { agent_id: AGENT_A, api_key_hash: 'digest-2', at: T0 } },
    ]);
    expect(codeOf(() => decideRotateKey({ api_key_hash: 'x', now: T0 }, agent([])))).toBe('not_found');
  });

  it('limits change per field; an unregistered agent is not_found', () => {
    const [changed] = decideChangeLimits(
      { limits: { hourly_tx_cap: 3 }, now: T0 },
      agent([registered(AGENT_A)]),
    );
    expect(changed!.data).toEqual({
      agent_id: AGENT_A,
      limits: { per_tx_limit: '100', daily_limit: '1000', hourly_tx_cap: 3 },
      at: T0,
    });
    expect(codeOf(() => decideChangeLimits({ limits: {}, now: T0 }, agent([])))).toBe('not_found');
  });
});

describe('the intents an agent remembers', () => {
  const blockedWith = (code: string) =>
    [{ type: 'intent.blocked', data: expect.objectContaining({ code }) }] as AgentEvent[];
  const acceptedEvent = [{ type: 'intent.accepted', data: expect.anything() }] as AgentEvent[];

  it('a second outcome never overwrites a settled intent: confirmed stays counted', () => {
    DeciderSpecification.for(spend())
      .given([registered(AGENT_A), accepted('i', '950', T0), confirmed('i', T0), failed('i', T0)])
      .when(transfer('51'))
      .then(blockedWith('daily_limit_exceeded'));
  });

  it('a second outcome never overwrites a settled intent: failed stays released', () => {
    DeciderSpecification.for(spend())
      .given([registered(AGENT_A), accepted('i', '100', T0), failed('i', T0), confirmed('i', T0)])
      .when(transfer('100'))
      .then(acceptedEvent);
    expect(
      foldAgent([
        registered(AGENT_A),
        accepted('i', '100', T0),
        failed('i', T0),
        confirmed('i', T0),
      ]).intents.get('i')?.status,
    ).toBe('failed');
  });

  it('an outcome for an intent the agent never accepted changes nothing', () => {
    const history = [registered(AGENT_A), accepted('i', '100', T0)];
    expect(foldAgent([...history, confirmed('other', T0), failed('other', T0)])).toEqual(foldAgent(history));
  });

  it('an intent still reserved is never pruned, however old: its outcome days later still settles it', () => {
    const later = T0 + 3 * DAY;
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), accepted('old', '10', T0), ...spent('1', later)])
      .when({ intent_id: 'old', outcome: { status: 'confirmed', tx_sig: 'sig' }, now: later })
      .then([
        { type: 'intent.confirmed', data: { intent_id: 'old', agent_id: AGENT_A, tx_sig: 'sig', at: later } },
      ]);
  });

  it('a settled intent is kept for the daily window plus an hour of clock skew, then dropped', () => {
    const retention = DAY + HOUR;
    const history = [registered(AGENT_A), accepted('i', '10', T0), confirmed('i', T0)];
    const kept = DeciderSpecification.for(spend())
      .given([...history, accepted('next', '1', T0 + retention - 1)])
      .state();
    expect(new Set(kept.intents.keys())).toEqual(new Set(['i', 'next']));
    const dropped = DeciderSpecification.for(spend())
      .given([...history, accepted('next', '1', T0 + retention)])
      .state();
    expect([...dropped.intents.keys()]).toEqual(['next']);
  });

  it('remembers when its latest operation was accepted after the windows have let it go', () => {
    const later = T0 + 3 * DAY;
    const state = DeciderSpecification.for(spend())
      .given([registered(AGENT_A), accepted('i', '10', T0), confirmed('i', T0), accepted('next', '1', later)])
      .state();
    expect(state.intents.has('i')).toBe(false);
    expect(state.lastOperationAt).toBe(later);
    expect(
      DeciderSpecification.for(spend())
        .given([registered(AGENT_A), accepted('late', '1', later), accepted('skewed', '1', later - 5)])
        .state().lastOperationAt,
    ).toBe(later);
  });

  describe('the executor’s record of what it signed (intent.submitting)', () => {
    it('is kept on the reserved intent, so a restarted executor re-sends those bytes instead of signing again', () => {
      const state = DeciderSpecification.for(settleIntent)
        .given([registered(AGENT_A), accepted('i', '100', T0), submitting('i', T0 + SECOND)])
        .state();
      expect(state.intents.get('i')).toEqual(
        expect.objectContaining({
          status: 'reserved',
          submission: { signature: 'sig-i', wire: 'AQID', lastValidBlockHeight: '1234' },
        }),
      );
    });

    it('leaves the intent reserved and counted until its outcome', () => {
      DeciderSpecification.for(spend())
        .given([registered(AGENT_A), accepted('i', '950', T0), submitting('i', T0)])
        .when(transfer('51'))
        .then(blockedWith('daily_limit_exceeded'));
      DeciderSpecification.for(settleIntent)
        .given([registered(AGENT_A), accepted('i', '100', T0), submitting('i', T0)])
        .when({ intent_id: 'i', outcome: { status: 'confirmed', tx_sig: 'sig-i' }, now: T0 })
        .then([{ type: 'intent.confirmed', data: expect.objectContaining({ intent_id: 'i' }) }]);
    });

    it('is let go when the intent settles, which still counts in the windows (a day of them is kept)', () => {
      for (const outcome of [confirmed('i', T0 + MINUTE), failed('i', T0 + MINUTE)]) {
        const state = foldAgent([
          registered(AGENT_A),
          accepted('i', '100', T0),
          submitting('i', T0 + SECOND),
          outcome,
        ]);
        const item = state.intents.get('i')!;
        expect(item.status).toBe(outcome.type === 'intent.confirmed' ? 'confirmed' : 'failed');
        expect(item).not.toHaveProperty('submission');
      }
      const state = foldAgent([
        registered(AGENT_A),
        accepted('i', '100', T0),
        submitting('i', T0 + SECOND),
        confirmed('i', T0 + MINUTE),
      ]);
      expect(state.intents.spent(T0 + MINUTE, DAY, 'confirmed')).toEqual(new Big(100));
    });

    it('recorded after the outcome, or for an unknown intent, changes nothing', () => {
      const settled = [registered(AGENT_A), accepted('i', '100', T0), confirmed('i', T0)];
      expect(foldAgent([...settled, submitting('i', T0), submitting('x', T0)])).toEqual(foldAgent(settled));
    });
  });
});

describe('the limits of an agent', () => {
  const changed = (l: { per_tx_limit: string; daily_limit: string; hourly_tx_cap: number }): AgentEvent[] => [
    { type: 'agent.limits_changed', data: { agent_id: AGENT_A, limits: l, at: T0 } },
  ];

  it('an hourly cap of 0 is valid: the agent may then do nothing', () => {
    DeciderSpecification.for(changeLimits)
      .given([registered(AGENT_A)])
      .when({ limits: { hourly_tx_cap: 0 }, now: T0 })
      .then(changed({ per_tx_limit: '100', daily_limit: '1000', hourly_tx_cap: 0 }));
    const capped = foldAgent([registered(AGENT_A), ...changed({ ...LIMITS, hourly_tx_cap: 0 })]);
    expect(decideIntent(transfer('1'), { group: group(), agent: capped }).code).toBe('hourly_cap_exceeded');
  });

  it.each([
    ['negative', -1],
    ['fractional', 1.5],
    ['a string', '3'],
    ['beyond safe integers', 2 ** 53],
  ])('an hourly cap that is %s is refused, at /hourly_tx_cap', (_, cap) => {
    DeciderSpecification.for(changeLimits)
      .given([registered(AGENT_A)])
      .when({ limits: { hourly_tx_cap: cap }, now: T0 })
      .thenThrows('validation_error', '/hourly_tx_cap');
  });

  it.each(['per_tx_limit', 'daily_limit'])('a bad %s is refused with a message that names it', (field) => {
    const err = thrownBy(() =>
      decideChangeLimits({ limits: { [field]: '-5' }, now: T0 }, foldAgent([registered(AGENT_A)])),
    );
    expect(err.code).toBe('invalid_amount');
    expect(err.message).toContain(field);
  });

  it('amounts come as numbers or decimal strings, each field laid over the current limits', () => {
    DeciderSpecification.for(changeLimits)
      .given([registered(AGENT_A)])
      .when({ limits: { per_tx_limit: 12.5, daily_limit: '250' }, now: T0 })
      .then(changed({ per_tx_limit: '12.5', daily_limit: '250', hourly_tx_cap: 10 }));
    const after = foldAgent([
      registered(AGENT_A),
      ...changed({ per_tx_limit: '12.5', daily_limit: '250', hourly_tx_cap: 4 }),
    ]);
    expect(after.limits).toEqual({
      per_tx_limit: new Big('12.5'),
      daily_limit: new Big('250'),
      hourly_tx_cap: 4,
    });
  });

  it('a revoked agent keeps its limits, and they may still change (for the record)', () => {
    DeciderSpecification.for(changeLimits)
      .given([
        registered(AGENT_A),
        { type: 'agent.revoked', data: { agent_id: AGENT_A, reason: 'operator', at: T0 } },
      ])
      .when({ limits: { daily_limit: '5' }, now: T0 })
      .then(changed({ per_tx_limit: '100', daily_limit: '5', hourly_tx_cap: 10 }));
  });
});

describe('a spend refused for its key', () => {
  const rotatedTo = (key: string, at = T0): AgentEvent => ({
    type: 'agent.api_key_rotated',
    data: { agent_id: AGENT_A, api_key_hash: secretDigest(key), at },
  });
  const revoked = (at = T0): AgentEvent => ({
    type: 'agent.revoked',
    data: { agent_id: AGENT_A, reason: 'operator', at },
  });
  const attempt = (key: string, now = T0 + SECOND) => ({
    intent_id: 'refused-1',
    action: 'transfer' as const,
    api_key_hash: secretDigest(key),
    attempted_amount: new Big('12.5'),
    mint: 'mint-1',
    counterparty: 'to-1',
    now,
  });
  const blocked = (message: string, now = T0 + SECOND): AgentEvent[] => [
    {
      type: 'intent.blocked',
      data: {
        intent_id: 'refused-1',
        agent_id: AGENT_A,
        group_id: GROUP,
        action: 'transfer',
        code: 'unauthorized',
        message,
        attempted_amount: '12.5',
        mint: 'mint-1',
        counterparty: 'to-1',
        at: now,
      },
    },
  ];

  it('with the key of a revoked agent: recorded as blocked (unauthorized), for the operator’s webhooks', () => {
    DeciderSpecification.for(keyRefused)
      .given([registered(AGENT_A), revoked()])
      .when(attempt(API_KEY))
      .then(blocked('The agent is revoked; its key no longer moves anything.'));
  });

  it('with a key rotated out: recorded, also after several rotations', () => {
    DeciderSpecification.for(keyRefused)
      .given([registered(AGENT_A), rotatedTo('second'), rotatedTo('third')])
      .when(attempt(API_KEY))
      .then(blocked('The key was rotated out; use the agent’s current key.'));
    DeciderSpecification.for(keyRefused)
      .given([registered(AGENT_A), rotatedTo('second'), rotatedTo('third')])
      .when(attempt('second'))
      .then(blocked('The key was rotated out; use the agent’s current key.'));
  });

  it('with a key the agent never held, or no agent at all: nothing (a stranger stays anonymous)', () => {
    DeciderSpecification.for(keyRefused)
      .given([registered(AGENT_A), revoked()])
      .when(attempt('other'))
      .thenNothing();
    DeciderSpecification.for(keyRefused).given([]).when(attempt(API_KEY)).thenNothing();
  });

  it('with the current key of an active agent: nothing (it is not refused)', () => {
    DeciderSpecification.for(keyRefused)
      .given([registered(AGENT_A), rotatedTo('second')])
      .when(attempt('second'))
      .thenNothing();
  });

  it('one a minute per agent: a caller retrying in a loop cannot fill the log', () => {
    const first = attempt(API_KEY, T0 + SECOND);
    const history = [
      registered(AGENT_A),
      revoked(),
      ...decideKeyRefused(first, foldAgent([registered(AGENT_A), revoked()])),
    ];
    expect(history).toHaveLength(3);
    DeciderSpecification.for(keyRefused)
      .given(history)
      .when(attempt(API_KEY, T0 + SECOND + KEY_REFUSAL_INTERVAL_MS - 1))
      .thenNothing();
    DeciderSpecification.for(keyRefused)
      .given(history)
      .when(attempt(API_KEY, T0 + SECOND + KEY_REFUSAL_INTERVAL_MS))
      .then(
        blocked(
          'The agent is revoked; its key no longer moves anything.',
          T0 + SECOND + KEY_REFUSAL_INTERVAL_MS,
        ),
      );
  });

  it('only a recorded key refusal holds the next one back: a policy block a moment before does not', () => {
    const refusal = blocked('')[0] as Extract<AgentEvent, { type: 'intent.blocked' }>;
    const policyBlock: AgentEvent = {
      type: 'intent.blocked',
      data: { ...refusal.data, code: 'per_tx_limit_exceeded' },
    };
    DeciderSpecification.for(keyRefused)
      .given([registered(AGENT_A), policyBlock, revoked(T0 + SECOND)])
      .when(attempt(API_KEY, T0 + 2 * SECOND))
      .then(blocked('The agent is revoked; its key no longer moves anything.', T0 + 2 * SECOND));
  });

  it('a rotated agent still knows every key it held; an unregistered one none', () => {
    const state = foldAgent([registered(AGENT_A), rotatedTo('second')]);
    expect(heldKey(state, secretDigest(API_KEY))).toBe(true);
    expect(heldKey(state, secretDigest('second'))).toBe(true);
    expect(heldKey(state, secretDigest('third'))).toBe(false);
    expect(heldKey(foldAgent([]), foldAgent([]).apiKeyHash)).toBe(false);
  });
});

describe('the kill switch of one agent', () => {
  const history = [
    registered(AGENT_A),
    accepted('queued', '5', T0),
    accepted('on-chain', '7', T0),
    submitting('on-chain', T0),
  ];

  it('a freeze records who froze it and why, and fails what was accepted but not submitted', () => {
    const events = decideFreezeAgent({ by: OWNER, reason: 'looping', now: T0 + SECOND }, agent(history));
    expect(events).toEqual([
      {
        type: 'agent.frozen',
        data: { agent_id: AGENT_A, group_id: GROUP, by: OWNER, reason: 'looping', at: T0 + SECOND },
      },
      {
        type: 'intent.failed',
        data: {
          intent_id: 'queued',
          agent_id: AGENT_A,
          code: 'agent_frozen',
          message: 'An admin froze this agent before the operation was submitted: looping.',
          at: T0 + SECOND,
        },
      },
    ]);
    const frozen = foldAgent([...history, ...events]);
    expect(frozen.frozen).toEqual({ by: OWNER, reason: 'looping', at: T0 + SECOND });
    expect(frozen.intents.get('queued')!.status).toBe('failed');
    expect(frozen.intents.get('on-chain')!.status).toBe('reserved');
    // Its room is given back: the failed intent no longer counts toward the day, the submitted one does.
    expect(dailyRemaining(frozen, T0 + SECOND)).toEqual(new Big(1000 - 7));
  });

  it('every spend of a frozen agent is refused agent_frozen, naming when and why', () => {
    const frozen = agent([
      registered(AGENT_A),
      ...decideFreezeAgent({ by: OWNER, reason: 'looping', now: T0 }, agent([registered(AGENT_A)])),
    ]);
    const d = decideIntent(transfer('1', { now: T0 + MINUTE }), { group: group(), agent: frozen });
    expect(d.accepted).toBe(false);
    expect(d.code).toBe('agent_frozen');
    expect(d.message).toBe(
      `An admin froze this agent at ${new Date(T0).toISOString()} (looping): every spend is refused until it is unfrozen.`,
    );
    expect(d.agentEvents.map((e) => e.type)).toEqual(['intent.blocked']);
  });

  it('freezing again records nothing new but fails what is still open; a revoked agent has nothing to freeze', () => {
    const once = [...history, ...decideFreezeAgent({ by: OWNER, now: T0 }, agent(history))];
    const later = [...once, accepted('late', '1', T0)];
    expect(decideFreezeAgent({ by: OWNER, now: T0 }, agent(later)).map((e) => e.type)).toEqual([
      'intent.failed',
    ]);
    expect(decideFreezeAgent({ by: OWNER, now: T0 }, agent(once))).toEqual([]);
    const revoked = [registered(AGENT_A), ...decideRevoke({ now: T0 }, agent([registered(AGENT_A)]))];
    expect(decideFreezeAgent({ by: OWNER, now: T0 }, agent(revoked))).toEqual([]);
    expect(() => decideFreezeAgent({ by: OWNER, now: T0 }, agent([]))).toThrow();
  });

  it('an unfreeze (a proposal executing) lifts it; an agent not frozen is a conflict', () => {
    const frozen = [
      registered(AGENT_A),
      ...decideFreezeAgent({ by: OWNER, now: T0 }, agent([registered(AGENT_A)])),
    ];
    const events = decideUnfreezeAgent({ now: T0 + MINUTE }, agent(frozen));
    expect(events).toEqual([
      {
        type: 'agent.unfrozen',
        data: { agent_id: AGENT_A, group_id: GROUP, at: T0 + MINUTE },
      },
    ]);
    const lifted = foldAgent([...frozen, ...events]);
    expect(lifted).not.toHaveProperty('frozen');
    expect(
      decideIntent(transfer('1', { now: T0 + MINUTE }), { group: group(), agent: lifted }).accepted,
    ).toBe(true);
    expect(thrownBy(() => decideUnfreezeAgent({ now: T0 }, lifted)).code).toBe('conflict');
  });
});
