import Big from 'big.js';
import {
  decideAddEntry,
  decideCreateGroup,
  decideInviteAgent,
  decideRemoveEntry,
  evolveGroup,
  foldGroup,
  type InviteAgent,
} from './group';
import {
  AGENT_A,
  AGGREGATOR,
  BASE_MINT,
  OWNER,
  SECOND,
  STRANGER,
  T0,
  VENDOR,
  VENDOR_ENTRY,
  VENDOR_TTL_MS,
  VENUE,
  address,
  group,
  groupEvents,
} from '@tokenops/testing/domain/fixtures';
import { ENTRY_TYPE } from './events';
import { WhitelistEntryResponse, WhitelistRequest } from '../contract/operator/allow-list';
import { codeOf, thrownBy } from '@tokenops/testing/errors';
import { addEntry } from '@tokenops/testing/domain/deciders';
import { DeciderSpecification } from '@tokenops/testing/domain/specification';

const defaults = { per_tx_limit: new Big(50), daily_limit: new Big(500), hourly_tx_cap: 20 };

describe('the group', () => {
  it('is created with its defaults and the aggregator allow-listed as a protocol entry', () => {
    const events = decideCreateGroup(
      {
        group_id: 'g',
        owner_wallet: OWNER,
        base_mint: BASE_MINT,
        default_limits: defaults,
        aggregator: { entry_id: 'e-agg', address: AGGREGATOR },
        now: T0,
      },
      foldGroup([]),
    );
    const state = foldGroup(events);
    expect(state.exists).toBe(true);
    expect(state.defaultLimits.daily_limit.toFixed()).toBe('500');
    expect(state.entries.get(AGGREGATOR)).toEqual({
      entryId: 'e-agg',
      address: AGGREGATOR,
      type: 2,
      label: 'aggregator',
    });
    expect(
      thrownBy(() =>
        decideCreateGroup(
          {
            group_id: 'g',
            owner_wallet: OWNER,
            base_mint: BASE_MINT,
            default_limits: defaults,
            aggregator: { entry_id: 'x', address: AGGREGATOR },
            now: T0,
          },
          state,
        ),
      ).code,
    ).toBe('conflict');
  });

  describe('allow-list entries', () => {
    it('are named by type, and the names stand for the numbers the operator contract carries', () => {
      expect(ENTRY_TYPE).toEqual({ agent: 0, recipient: 1, protocol: 2 });
      expect(WhitelistEntryResponse.properties.type.enum).toEqual(Object.values(ENTRY_TYPE));
      expect(WhitelistRequest.properties.type.enum).toEqual([ENTRY_TYPE.recipient, ENTRY_TYPE.protocol]);
    });

    it('type 1 takes a budget and a TTL, and expires at now + ttl', () => {
      const [added] = decideAddEntry(
        {
          entry_id: 'e1',
          address: STRANGER,
          type: 1,
          approved_amount: '250.5',
          ttl_seconds: 3600,
          label: 'supplier',
          now: T0,
        },
        group(),
      );
      expect(added!.data).toEqual({
        group_id: 'group-1',
        entry_id: 'e1',
        address: STRANGER,
        type: 1,
        label: 'supplier',
        approved_amount: '250.5',
        ttl_expires_at: T0 + 3600 * SECOND,
        at: T0,
      });
    });

    it.each([
      [{ type: 1, ttl_seconds: 60 }, 'validation_error', '/approved_amount'],
      [{ type: 1, approved_amount: '10' }, 'validation_error', '/ttl_seconds'],
      [{ type: 1, approved_amount: '10', ttl_seconds: 0 }, 'validation_error', '/ttl_seconds'],
      [{ type: 1, approved_amount: '10', ttl_seconds: 1.5 }, 'validation_error', '/ttl_seconds'],
      [{ type: 1, approved_amount: '0', ttl_seconds: 60 }, 'invalid_amount', undefined],
      [{ type: 1, approved_amount: '1.0000001', ttl_seconds: 60 }, 'invalid_amount', undefined],
      [{ type: 2, approved_amount: '10' }, 'validation_error', '/type'],
      [{ type: 0 }, 'validation_error', '/type'],
      [{ type: 3 }, 'validation_error', '/type'],
    ])('rejects %j with %s', (input, code, path) => {
      const err = thrownBy(() =>
        decideAddEntry({ entry_id: 'e', address: STRANGER, now: T0, ...input }, group()),
      );
      expect(err.code).toBe(code);
      if (path) expect(err.details?.[0]?.path).toBe(path);
    });

    it('type 2 (a protocol: venue or aggregator) is added with its label and neither budget nor TTL', () => {
      const venue = address('venue-2');
      DeciderSpecification.for(addEntry)
        .given(groupEvents())
        .when({ entry_id: 'e2', address: venue, type: 2, label: 'lending', now: T0 })
        .then([
          {
            type: 'whitelist.entry_added',
            data: { group_id: 'group-1', entry_id: 'e2', address: venue, type: 2, label: 'lending', at: T0 },
          },
        ]);
      DeciderSpecification.for(addEntry)
        .given(groupEvents())
        .when({ entry_id: 'e2', address: venue, type: 2, now: T0 })
        .then([
          {
            type: 'whitelist.entry_added',
            data: { group_id: 'group-1', entry_id: 'e2', address: venue, type: 2, at: T0 },
          },
        ]);
    });

    it.each([
      ['an approved_amount', { approved_amount: '10' }],
      ['a ttl_seconds', { ttl_seconds: 60 }],
      ['both', { approved_amount: '10', ttl_seconds: 60 }],
    ])('type 2 with %s is refused at /type: a protocol has no budget', (_, extra) => {
      DeciderSpecification.for(addEntry)
        .given(groupEvents())
        .when({ entry_id: 'e2', address: address('venue-2'), type: 2, now: T0, ...extra })
        .thenThrows('validation_error', '/type');
    });

    it('a type-1 entry added without a label carries none', () => {
      DeciderSpecification.for(addEntry)
        .given(groupEvents())
        .when({ entry_id: 'e1', address: STRANGER, type: 1, approved_amount: 1, ttl_seconds: 1, now: T0 })
        .then([
          {
            type: 'whitelist.entry_added',
            data: {
              group_id: 'group-1',
              entry_id: 'e1',
              address: STRANGER,
              type: 1,
              approved_amount: '1',
              ttl_expires_at: T0 + SECOND,
              at: T0,
            },
          },
        ]);
    });

    it('an entry needs a group', () => {
      DeciderSpecification.for(addEntry)
        .given([])
        .when({ entry_id: 'e2', address: STRANGER, type: 2, now: T0 })
        .thenThrows('not_found');
    });

    it('a bad approved_amount is refused with a message that names it', () => {
      const err = thrownBy(() =>
        decideAddEntry(
          { entry_id: 'e', address: STRANGER, type: 1, approved_amount: 'lots', ttl_seconds: 60, now: T0 },
          group(),
        ),
      );
      expect(err.code).toBe('invalid_amount');
      expect(err.message).toContain('approved_amount');
    });

    it('adding a listed address again renews it: a new entry with a fresh budget', () => {
      const events = decideAddEntry(
        { entry_id: 'e-new', address: VENDOR, type: 1, approved_amount: 5, ttl_seconds: 60, now: T0 },
        group(),
      );
      const state = events.reduce(evolveGroup, group());
      expect(state.entries.get(VENDOR)).toEqual(
        expect.objectContaining({ entryId: 'e-new', approvedAmount: new Big(5) }),
      );
    });

    it('an agent of the group cannot be turned into another type, nor removed', () => {
      expect(
        thrownBy(() =>
          decideAddEntry(
            { entry_id: 'e', address: AGENT_A, type: 1, approved_amount: 1, ttl_seconds: 60, now: T0 },
            group(),
          ),
        ).code,
      ).toBe('conflict');
      expect(thrownBy(() => decideRemoveEntry({ entry_id: 'entry-agent-1', now: T0 }, group())).code).toBe(
        'conflict',
      );
    });

    it('removal records the entry and its address', () => {
      expect(decideRemoveEntry({ entry_id: VENDOR_ENTRY, now: T0 + 1 }, group())).toStrictEqual([
        {
          type: 'whitelist.entry_removed',
          data: { group_id: 'group-1', entry_id: VENDOR_ENTRY, address: VENDOR, at: T0 + 1 },
        },
      ]);
      expect(thrownBy(() => decideRemoveEntry({ entry_id: VENDOR_ENTRY, now: T0 }, foldGroup([]))).code).toBe(
        'not_found',
      );
    });

    it('folds an entry with exactly what it was given: a label, a budget and a TTL only when set', () => {
      expect(group().entries.get(VENDOR)).toStrictEqual({
        entryId: VENDOR_ENTRY,
        address: VENDOR,
        type: 1,
        label: 'vendor',
        approvedAmount: new Big(500),
        ttlExpiresAt: T0 + VENDOR_TTL_MS,
      });
      expect(group().entries.get(VENUE)).toStrictEqual({ entryId: 'entry-venue', address: VENUE, type: 2 });
    });

    it('removal takes the entry off the list; an unknown entry is not_found', () => {
      const state = decideRemoveEntry({ entry_id: VENDOR_ENTRY, now: T0 }, group()).reduce(
        evolveGroup,
        group(),
      );
      expect(state.entries.has(VENDOR)).toBe(false);
      expect(thrownBy(() => decideRemoveEntry({ entry_id: VENDOR_ENTRY, now: T0 }, state)).code).toBe(
        'not_found',
      );
    });

    it('a removal of a replaced entry does not remove its successor', () => {
      const renewed = decideAddEntry(
        { entry_id: 'e-new', address: VENDOR, type: 1, approved_amount: 5, ttl_seconds: 60, now: T0 },
        group(),
      ).reduce(evolveGroup, group());
      const stale = evolveGroup(renewed, {
        type: 'whitelist.entry_removed',
        data: { group_id: 'group-1', entry_id: VENDOR_ENTRY, address: VENDOR, at: T0 },
      });
      expect(stale.entries.get(VENDOR)?.entryId).toBe('e-new');
    });
  });

  describe('invitations', () => {
    it('carry the group defaults overlaid with the operator’s limits, and allow-list the agent (type 0)', () => {
      const agent = address('agent-c');
      const events = decideInviteAgent(
        {
          agent_id: agent,
          invitation_hash: 'h',
          expires_at: T0 + 1000,
          limits: { daily_limit: '75.25' },
          entry_id: 'e-c',
          label: 'bot',
          now: T0,
        },
        group(),
      );
      expect(events.map((e) => e.type)).toEqual(['agent.invited', 'whitelist.entry_added']);
      expect(events[0]!.data).toEqual(
        expect.objectContaining({ limits: { per_tx_limit: '100', daily_limit: '75.25', hourly_tx_cap: 10 } }),
      );
      const state = events.reduce(evolveGroup, group());
      expect(state.entries.get(agent)).toEqual(expect.objectContaining({ type: 0, label: 'bot' }));
      expect(state.invitations.get(agent)?.label).toBe('bot');
    });

    it('without a label, the agent’s entry is labelled "agent" and the invitation carries none', () => {
      const agentC = address('agent-c');
      const events = decideInviteAgent(
        { agent_id: agentC, invitation_hash: 'h', expires_at: T0 + 1000, entry_id: 'e-c', now: T0 },
        group(),
      );
      expect(events).toStrictEqual([
        {
          type: 'agent.invited',
          data: {
            group_id: 'group-1',
            agent_id: agentC,
            invitation_hash: 'h',
            invitation_expires_at: T0 + 1000,
            limits: { per_tx_limit: '100', daily_limit: '1000', hourly_tx_cap: 10 },
            at: T0,
          },
        },
        {
          type: 'whitelist.entry_added',
          data: { group_id: 'group-1', entry_id: 'e-c', address: agentC, type: 0, label: 'agent', at: T0 },
        },
      ]);
      const state = events.reduce(evolveGroup, group());
      expect(state.invitations.get(agentC)).toStrictEqual({
        agentId: agentC,
        hash: 'h',
        expiresAt: T0 + 1000,
        limits: { per_tx_limit: new Big(100), daily_limit: new Big(1000), hourly_tx_cap: 10 },
      });
    });

    const invite = (overrides: Partial<InviteAgent>, state = group()) =>
      codeOf(() =>
        decideInviteAgent(
          {
            agent_id: address('c'),
            invitation_hash: 'h',
            expires_at: T0 + 1,
            entry_id: 'e',
            now: T0,
            ...overrides,
          },
          state,
        ),
      );

    it('reject bad limits, an invitation already expired, and a second invitation of the same agent', () => {
      expect(invite({ limits: { hourly_tx_cap: -1 } })).toBe('validation_error');
      expect(invite({ limits: { per_tx_limit: -1 } })).toBe('invalid_amount');
      expect(invite({ expires_at: T0 })).toBe('validation_error');
      expect(
        thrownBy(() =>
          decideInviteAgent(
            { agent_id: address('c'), invitation_hash: 'h', expires_at: T0, entry_id: 'e', now: T0 },
            group(),
          ),
        ).details?.map((d) => d.path),
      ).toEqual(['/expires_in_seconds']);
      expect(invite({ agent_id: AGENT_A })).toBe('conflict');
    });

    it('need a group', () => {
      expect(invite({}, foldGroup([]))).toBe('not_found');
    });
  });

  it('folds the fixture group into the expected allow-list', () => {
    expect([...group(groupEvents()).entries.values()].map((e) => e.type).sort()).toEqual([0, 0, 1, 2, 2]);
  });
});
