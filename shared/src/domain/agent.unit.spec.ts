import { codeOf } from '../errors/testing';
import {
  acceptsKey,
  decideChangeLimits,
  decideEmergencyStop,
  decideEmergencyWithdrawn,
  decideRegister,
  decideRevoke,
  decideRotateKey,
  foldAgent,
} from './agent';
import type { AgentEvent } from './events';
import { secretDigest } from './secrets';
import {
  AGENT_A,
  API_KEY,
  INVITE_SECRET,
  MINUTE,
  OWNER,
  T0,
  agent,
  group,
  registered,
  spent,
} from './testing/fixtures';

/** An intent accepted (and not settled) under `id`. */
const accepted = (id: string, value: string): AgentEvent[] => {
  const [event] = spent(value, T0);
  return [{ ...event!, data: { ...(event!.data as object), intent_id: id } } as AgentEvent];
};

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

  it('an emergency stop revokes the agent and fails every accepted intent not yet submitted; a submitted one is left to its executor', () => {
    const history = [
      registered(AGENT_A),
      ...accepted('queued', '5'),
      ...accepted('on-chain', '7'),
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
