import Big from 'big.js';
import fc from 'fast-check';
import {
  AGENT_A,
  AGENT_B,
  GROUP,
  LIMITS,
  MINUTE,
  T0,
  agent,
  group,
  groupEvents,
  registered,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { thrownBy } from '@tokenops/testing/errors';
import type { GroupEvent, GroupSpendsEvent } from './events';
import {
  decideGroupLimits,
  decideReleaseGroupCount,
  evolveGroupSpends,
  groupLimitsWiden,
  groupRoom,
  initialGroupSpends,
  mergeGroupLimits,
  type GroupSpendsState,
} from './group-limits';
import { decideIntent, simulateIntent } from './intent';
import { DAY_MS, HOUR_MS } from './time';

const big = (v: string) => new Big(v);
const foldSpends = (events: readonly GroupSpendsEvent[]): GroupSpendsState =>
  events.reduce(evolveGroupSpends, initialGroupSpends());

/** The fixture group with its own limits set at T0. */
function limited(limits: { daily_limit?: string | null; hourly_tx_cap?: number | null }) {
  const base = group();
  const set = decideGroupLimits({ ...limits, group_id: base.groupId, now: T0 }, base.limits);
  return group([...groupEvents(), ...(set as GroupEvent[])]);
}

const counted = (intent_id: string, value: string, at: number, spends = true): GroupSpendsEvent => ({
  type: 'group.spend_counted',
  data: { group_id: GROUP, intent_id, agent_id: AGENT_B, value, spends, at },
});

// Agent A with generous limits of its own: only the group's can refuse.
const roomy = () =>
  agent([registered(AGENT_A, { per_tx_limit: '1000', daily_limit: '100000', hourly_tx_cap: 1000 })]);

describe('setting group limits', () => {
  it('sets, keeps what is left out, and lifts with null', () => {
    expect(mergeGroupLimits({}, { daily_limit: '10' })).toEqual({ daily_limit: big('10') });
    expect(mergeGroupLimits({ daily_limit: big('10') }, { hourly_tx_cap: 3 })).toEqual({
      daily_limit: big('10'),
      hourly_tx_cap: 3,
    });
    expect(mergeGroupLimits({ daily_limit: big('10'), hourly_tx_cap: 3 }, { daily_limit: null })).toEqual({
      hourly_tx_cap: 3,
    });
  });

  it('records the limits whole, with null for none, and nothing when nothing changes', () => {
    expect(decideGroupLimits({ daily_limit: '10', group_id: 'g', now: T0 }, {})).toEqual([
      { type: 'group.limits_set', data: { group_id: 'g', daily_limit: '10', hourly_tx_cap: null, at: T0 } },
    ]);
    expect(
      decideGroupLimits({ daily_limit: '10.0', group_id: 'g', now: T0 }, { daily_limit: big('10') }),
    ).toEqual([]);
  });

  it('names the field of bad input, and asks for one field at least', () => {
    expect(thrownBy(() => mergeGroupLimits({}, { hourly_tx_cap: -1 })).details).toEqual([
      { path: '/hourly_tx_cap', issue: 'must be a non-negative integer or null' },
    ]);
    expect(thrownBy(() => mergeGroupLimits({}, { hourly_tx_cap: 1.5 })).code).toBe('validation_error');
    expect(thrownBy(() => mergeGroupLimits({}, { daily_limit: '-1' })).code).toBe('invalid_amount');
    expect(thrownBy(() => decideGroupLimits({ group_id: 'g', now: T0 }, {})).code).toBe('validation_error');
  });

  it('widens when a limit is lifted or raised, never when one is set or lowered', () => {
    const ten = { daily_limit: big('10'), hourly_tx_cap: 5 };
    expect(groupLimitsWiden({}, ten)).toBe(false);
    expect(groupLimitsWiden(ten, { daily_limit: big('9'), hourly_tx_cap: 5 })).toBe(false);
    expect(groupLimitsWiden(ten, { daily_limit: big('10.000001'), hourly_tx_cap: 5 })).toBe(true);
    expect(groupLimitsWiden(ten, { daily_limit: big('10'), hourly_tx_cap: 6 })).toBe(true);
    expect(groupLimitsWiden(ten, { hourly_tx_cap: 5 })).toBe(true);
    expect(groupLimitsWiden(ten, { daily_limit: big('1') })).toBe(true);
  });
});

describe('the decision under group limits', () => {
  it('refuses what the group’s agents together spent past its daily limit, and counts what it accepts', () => {
    const g = limited({ daily_limit: '10' });
    const spends = foldSpends([counted('b-1', '7', T0)]);
    const over = decideIntent(transfer('3.000001', { now: T0 + MINUTE }), {
      group: g,
      agent: roomy(),
      groupSpends: spends,
    });
    expect(over.code).toBe('group_daily_limit_exceeded');
    expect(over.groupEvents).toEqual([]);
    const cmd = transfer('3', { now: T0 + MINUTE });
    const fits = decideIntent(cmd, { group: g, agent: roomy(), groupSpends: spends });
    expect(fits.accepted).toBe(true);
    expect(fits.agentEvents[0]!.data).toMatchObject({ group_limited: true });
    expect(fits.groupEvents).toEqual([
      {
        type: 'group.spend_counted',
        data: {
          group_id: g.groupId,
          intent_id: cmd.intent_id,
          agent_id: AGENT_A,
          value: '3',
          spends: true,
          at: cmd.now,
        },
      },
    ]);
  });

  it('counts a spend for 24 hours to the millisecond, and a released one not at all', () => {
    const g = limited({ daily_limit: '10' });
    const spends = foldSpends([
      counted('b-1', '10', T0),
      counted('b-2', '5', T0),
      { type: 'group.spend_released', data: { group_id: GROUP, intent_id: 'b-2', at: T0 } },
    ]);
    const at = (now: number) =>
      decideIntent(transfer('1', { now }), { group: g, agent: roomy(), groupSpends: spends }).code;
    expect(at(T0 + DAY_MS - 1)).toBe('group_daily_limit_exceeded');
    expect(at(T0 + DAY_MS)).toBeUndefined();
  });

  it('caps the group’s operations in 60 minutes, withdrawals included, and not their value', () => {
    const g = limited({ hourly_tx_cap: 2 });
    const spends = foldSpends([counted('b-1', '1', T0), counted('b-2', '900', T0, false)]);
    const decide = (now: number) =>
      decideIntent(transfer('1', { now }), { group: g, agent: roomy(), groupSpends: spends });
    expect(decide(T0 + HOUR_MS - 1).code).toBe('group_hourly_tx_cap_exceeded');
    expect(decide(T0 + HOUR_MS).accepted).toBe(true);
  });

  it('comes after the agent’s own limits (their codes first), and simulate names it', () => {
    const g = limited({ daily_limit: '1' });
    const small = agent([registered(AGENT_A, { ...LIMITS, per_tx_limit: '5' })]);
    expect(decideIntent(transfer('6'), { group: g, agent: small }).code).toBe('per_tx_limit_exceeded');
    const sim = simulateIntent(transfer('2'), { group: g, agent: small });
    expect(sim).toMatchObject({ would_succeed: false, reason: 'group_daily_limit_exceeded' });
    // Only the limit the group has is checked.
    expect(sim.checks.map((c) => c.name)).toContain('group_daily');
    expect(sim.checks.map((c) => c.name)).not.toContain('group_hourly');
  });

  it('touches nothing of the group’s for a group without limits', () => {
    const d = decideIntent(transfer('1'), { group: group(), agent: roomy() });
    expect(d.groupEvents).toEqual([]);
    expect(d.agentEvents[0]!.data).not.toHaveProperty('group_limited');
    expect(
      simulateIntent(transfer('1'), { group: group(), agent: roomy() }).checks.map((c) => c.name),
    ).not.toContain('group_daily');
  });

  it('does not hold an intent’s own count against it when decided again, and releases it when then refused', () => {
    const g = limited({ daily_limit: '10', hourly_tx_cap: 1 });
    const cmd = transfer('10');
    const spends = foldSpends([counted(cmd.intent_id, '10', T0)]);
    const again = decideIntent(cmd, { group: g, agent: roomy(), groupSpends: spends });
    expect(again.accepted).toBe(true);
    expect(again.groupEvents).toEqual([]);
    const refused = decideIntent(cmd, {
      group: g,
      agent: agent([registered(AGENT_A, { ...LIMITS, per_tx_limit: '5' })]),
      groupSpends: spends,
    });
    expect(refused.code).toBe('per_tx_limit_exceeded');
    expect(refused.groupEvents).toEqual([
      { type: 'group.spend_released', data: { group_id: g.groupId, intent_id: cmd.intent_id, at: cmd.now } },
    ]);
  });

  it('releases a failed intent once, and what it released counts again as room', () => {
    const spends = foldSpends([counted('b-1', '4', T0)]);
    const released = decideReleaseGroupCount(GROUP, 'b-1', spends, T0 + 1);
    expect(released).toHaveLength(1);
    const after = foldSpends([counted('b-1', '4', T0), ...released]);
    expect(decideReleaseGroupCount(GROUP, 'b-1', after, T0 + 2)).toEqual([]);
    expect(decideReleaseGroupCount(GROUP, 'unknown', after, T0 + 2)).toEqual([]);
    expect(groupRoom({ daily_limit: big('10') }, after, T0 + 3, 'x').daily_remaining).toEqual(big('10'));
  });
});

describe('the edges of the group’s limits', () => {
  it('lifts a cap with null, and keeps no key for a limit that is none', () => {
    const lifted = mergeGroupLimits({ daily_limit: big('10'), hourly_tx_cap: 3 }, { hourly_tx_cap: null });
    expect(Object.keys(lifted)).toEqual(['daily_limit']);
    expect(Object.keys(mergeGroupLimits({}, { hourly_tx_cap: 2 }))).toEqual(['hourly_tx_cap']);
    expect(Object.keys(mergeGroupLimits({ hourly_tx_cap: 2 }, { daily_limit: null }))).toEqual([
      'hourly_tx_cap',
    ]);
  });

  it('names the field of a bad amount, and says which fields an empty change needs', () => {
    expect(thrownBy(() => mergeGroupLimits({}, { daily_limit: 'x' })).message).toContain('daily_limit');
    expect(thrownBy(() => decideGroupLimits({ group_id: 'g', now: T0 }, {})).details).toEqual([
      { path: '', issue: 'must name daily_limit or hourly_tx_cap (null lifts one)' },
    ]);
  });

  it('records a lift or a change of the daily limit, and nothing for the same cap again', () => {
    expect(decideGroupLimits({ hourly_tx_cap: 3, group_id: 'g', now: T0 }, { hourly_tx_cap: 3 })).toEqual([]);
    expect(
      decideGroupLimits({ daily_limit: null, group_id: 'g', now: T0 }, { daily_limit: big('10') }),
    ).toEqual([
      { type: 'group.limits_set', data: { group_id: 'g', daily_limit: null, hourly_tx_cap: null, at: T0 } },
    ]);
    expect(
      decideGroupLimits({ daily_limit: '11', group_id: 'g', now: T0 }, { daily_limit: big('10') }),
    ).toHaveLength(1);
  });

  it('keeps a count for its whole day, whatever is counted after it', () => {
    const spends = foldSpends([counted('b-1', '5', T0), counted('b-2', '1', T0 + 23 * HOUR_MS)]);
    expect(groupRoom({ daily_limit: big('10') }, spends, T0 + 23.5 * HOUR_MS, 'x').daily_remaining).toEqual(
      big('4'),
    );
  });

  it('counts an intent once: a second count of it, even after its release, changes nothing', () => {
    const released: GroupSpendsEvent = {
      type: 'group.spend_released',
      data: { group_id: GROUP, intent_id: 'b-1', at: T0 },
    };
    const spends = foldSpends([counted('b-1', '4', T0), released, counted('b-1', '4', T0)]);
    expect(groupRoom({ daily_limit: big('10') }, spends, T0 + 1, 'y')).toEqual({
      own: false,
      daily_remaining: big('10'),
    });
  });

  it('does not give back a released or an expired own count as room', () => {
    const released: GroupSpendsEvent = {
      type: 'group.spend_released',
      data: { group_id: GROUP, intent_id: 'x', at: T0 },
    };
    const limits = { daily_limit: big('10'), hourly_tx_cap: 5 };
    expect(groupRoom(limits, foldSpends([counted('x', '4', T0), released]), T0 + 1, 'x')).toEqual({
      own: false,
      daily_remaining: big('10'),
      hourly_tx_remaining: 5,
    });
    const own = foldSpends([counted('x', '4', T0)]);
    // Still inside each window: its own count is not held against it.
    expect(groupRoom(limits, own, T0 + HOUR_MS - 1, 'x')).toEqual({
      own: true,
      daily_remaining: big('10'),
      hourly_tx_remaining: 5,
    });
    // Out of the hour (to the millisecond), then out of the day: nothing to take off.
    expect(groupRoom(limits, own, T0 + HOUR_MS, 'x').hourly_tx_remaining).toBe(5);
    expect(groupRoom(limits, own, T0 + DAY_MS, 'x').daily_remaining).toEqual(big('10'));
    expect(groupRoom(limits, own, T0 + DAY_MS + 1, 'x').daily_remaining).toEqual(big('10'));
  });
});

describe('the group’s windows', () => {
  it('add up to a naive recount of the counted, unreleased spends, on generated histories', () => {
    const event = fc.record({
      id: fc.integer({ min: 0, max: 20 }),
      value: fc.integer({ min: 0, max: 100 }),
      at: fc.integer({ min: 0, max: 2 * DAY_MS }),
      spends: fc.boolean(),
      release: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 60 }),
        fc.integer({ min: 0, max: 3 * DAY_MS }),
        (list, offset) => {
          const sorted = [...list].sort((a, b) => a.at - b.at);
          // An intent is counted once (its acceptance); a release names any intent, counted or not.
          const idOf = (e: (typeof sorted)[number], i: number) => (e.release ? `i-${e.id}` : `i-${i}`);
          const events: GroupSpendsEvent[] = sorted.map((e, i) =>
            e.release
              ? {
                  type: 'group.spend_released',
                  data: { group_id: GROUP, intent_id: idOf(e, i), at: T0 + e.at },
                }
              : counted(idOf(e, i), String(e.value), T0 + e.at, e.spends),
          );
          const now = T0 + offset;
          // The naive recount: each count, unless a release of it came after.
          const live = new Map<string, { value: number; at: number; spends: boolean }>();
          const gone = new Set<string>();
          for (const [i, e] of sorted.entries()) {
            const id = idOf(e, i);
            if (e.release) {
              if (live.has(id)) gone.add(id);
            } else if (!live.has(id)) live.set(id, { value: e.value, at: T0 + e.at, spends: e.spends });
          }
          const kept = [...live].filter(([id]) => !gone.has(id)).map(([, v]) => v);
          const inDay = kept.filter((v) => now - v.at < DAY_MS && v.spends).reduce((s, v) => s + v.value, 0);
          const inHour = kept.filter((v) => now - v.at < HOUR_MS).length;
          // The fold prunes what is older than a day and an hour before its latest count: only a `now` at
          // or after the log's last event is asked (the decision's clock is never behind by more).
          const latest = sorted.length ? T0 + sorted[sorted.length - 1]!.at : T0;
          if (now < latest) return;
          const room = groupRoom(
            { daily_limit: big('1000000'), hourly_tx_cap: 1000 },
            foldSpends(events),
            now,
            'none',
          );
          expect(room.daily_remaining).toEqual(big('1000000').minus(inDay));
          expect(room.hourly_tx_remaining).toBe(1000 - inHour);
        },
      ),
    );
  });
});
