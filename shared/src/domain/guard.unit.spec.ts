/**
 * The guard's rules on hand-made histories: each rule at its threshold and one step past it, the
 * millisecond a spend leaves a window, clocks ahead of `now`, quiet hours across midnight and over
 * New York's changes of clock, a young agent's velocity; a long generated log folded (pruned as it
 * goes) answering what a recount of its raw events answers; operator input and changes of the rules.
 */
import Big from 'big.js';
import { ServiceError } from '../errors';
import {
  accepted,
  AGENT_A,
  BASE_MINT,
  confirmed,
  failed,
  GROUP,
  MINUTE,
  registered,
  submitting,
  T0,
} from '@tokenops/testing/domain/fixtures';
import type { Action, AgentEvent, BlockCode } from './events';
import {
  emptyGuardHistory,
  evaluateGuard,
  evolveGuardHistory,
  foldGuardHistory,
  decideGuard,
  guardLoosens,
  inReadingOrder,
  parseGuardRules,
  refusalTrip,
  type GuardRule,
  type GuardSpend,
} from './guard';
import { DAY_MS, HOUR_MS } from './time';

const WEEK = 168 * HOUR_MS;
const OTHER_MINT = 'mint-other';
const ENTRY = 'entry-vendor';

let n = 0;
/** An accepted spend of `value` at `at` (to ENTRY, of the base token unless told). */
function spend(
  value: string,
  at: number,
  o: { id?: string; entry?: string; mint?: string; action?: Action; held?: boolean } = {},
): AgentEvent {
  const e = accepted(o.id ?? `s${++n}`, value, at, o.action ?? 'transfer');
  if (e.type !== 'intent.accepted') throw new Error('fixture');
  return {
    ...e,
    data: {
      ...e.data,
      entry_id: o.entry ?? ENTRY,
      mint: o.mint ?? BASE_MINT,
      ...(o.held && { held: { approval_id: `ap-${n}`, expires_at: at + DAY_MS } }),
    },
  };
}

const blocked = (code: BlockCode, at: number): AgentEvent => ({
  type: 'intent.blocked',
  data: {
    intent_id: `b${++n}`,
    agent_id: AGENT_A,
    group_id: GROUP,
    action: 'transfer',
    code,
    message: 'refused',
    attempted_amount: '1',
    mint: BASE_MINT,
    counterparty: 'someone',
    at,
  },
});

const judged = (now: number, o: Partial<GuardSpend> = {}): GuardSpend => ({
  entry_id: ENTRY,
  mint: BASE_MINT,
  value: new Big(1),
  now,
  daily_limit: new Big(100),
  ...o,
});

const rule = {
  velocity: (factor: number, min_count: number): GuardRule => ({
    kind: 'velocity',
    factor,
    min_count,
    action: 'hold',
  }),
  burst: (window_seconds: number, fraction: string): GuardRule => ({
    kind: 'burst',
    window_seconds,
    fraction,
    action: 'hold',
  }),
  refusals: (count: number, window_seconds: number): GuardRule => ({
    kind: 'refusals',
    count,
    window_seconds,
    action: 'freeze_agent',
  }),
  quiet: (from: string, to: string, time_zone: string): GuardRule => ({
    kind: 'quiet_hours',
    from,
    to,
    time_zone,
    action: 'hold',
  }),
};

const NOW = T0 + 30 * DAY_MS;
const old = registered(AGENT_A, undefined, NOW - 30 * DAY_MS);
const history = (events: AgentEvent[]) => foldGuardHistory([old, ...events]);

describe('the history', () => {
  it('ignores what is not a spend, a settlement, a refusal or the registration', () => {
    const h = history([spend('1', NOW - MINUTE, { id: 'x' })]);
    for (const e of [
      submitting('x', NOW),
      spend('5', NOW, { action: 'withdraw' }),
      confirmed('unknown', NOW),
      failed('unknown', NOW),
      blocked('unauthorized', NOW),
      blocked('invalid_amount', NOW),
      blocked('recipient_invalid', NOW),
      blocked('agent_frozen', NOW),
      blocked('group_frozen', NOW),
      { type: 'agent.unfrozen', data: { agent_id: AGENT_A, group_id: GROUP, at: NOW } } as AgentEvent,
    ])
      expect(evolveGuardHistory(h, e)).toBe(h);
  });

  it('folds without changing the value folded into', () => {
    const before = history([spend('1', NOW - MINUTE, { id: 'x' })]);
    const snapshot = evaluateGuard([rule.burst(600, '0.01')], judged(NOW), before);
    evolveGuardHistory(before, failed('x', NOW));
    evolveGuardHistory(before, spend('50', NOW));
    expect(evaluateGuard([rule.burst(600, '0.01')], judged(NOW), before)).toEqual(snapshot);
  });
});

describe('velocity', () => {
  /** One spend an hour for most of the week (k hours and a half ago), then `recent` in the last ten minutes. */
  const week = (hours: number, recent: number) => [
    ...Array.from({ length: hours }, (_, k) => spend('1', NOW - (k + 1) * HOUR_MS - 30 * MINUTE)),
    ...Array.from({ length: recent }, (_, k) => spend('1', NOW - (k + 1) * 30_000)),
  ];

  it('trips when the last hour is above factor x the usual count, naming both', () => {
    const h = history(week(167, 11));
    const [trip] = evaluateGuard([rule.velocity(3, 5)], judged(NOW), h);
    // 178 spends in the week: 1.06 an hour; 11 + this one in the last hour.
    expect(trip).toEqual({
      rule: 'velocity',
      action: 'hold',
      figures: { count: 12, usual: '1.06', factor: 3, min_count: 5 },
      words: '12 spends in the last hour, usually 1.06 an hour: above 3 x usual',
    });
  });

  it('is strictly above: count equal to factor x usual passes, a smaller factor trips', () => {
    // 166 + 2 = 168 spends in the week: exactly 1 an hour; 3 in the last hour with this one.
    const h = history(week(166, 2));
    expect(evaluateGuard([rule.velocity(3, 1)], judged(NOW), h)).toEqual([]);
    const [trip] = evaluateGuard([rule.velocity(2.99, 1)], judged(NOW), h);
    expect(trip?.figures).toEqual({ count: 3, usual: '1', factor: 2.99, min_count: 1 });
  });

  it('needs min_count spends in the hour, this one included', () => {
    const h = history(week(0, 3)); // usual 3/168; 4 in the hour
    expect(evaluateGuard([rule.velocity(1, 5)], judged(NOW), h)).toEqual([]);
    expect(evaluateGuard([rule.velocity(1, 4)], judged(NOW), h)).toHaveLength(1);
  });

  it("a young agent's usual is over its age, but at least an hour", () => {
    const young = (age: number, spends: number) =>
      foldGuardHistory([
        registered(AGENT_A, undefined, NOW - age),
        ...Array.from({ length: spends }, (_, k) => spend('1', NOW - age + (k + 1) * MINUTE)),
      ]);
    // 30 minutes old, 4 spends: usual 4 an hour (over 1 h, not 8 over its half hour); 5 > 1 x 4.
    const [trip] = evaluateGuard([rule.velocity(1, 1)], judged(NOW), young(30 * MINUTE, 4));
    expect(trip?.figures).toEqual({ count: 5, usual: '4', factor: 1, min_count: 1 });
    expect(evaluateGuard([rule.velocity(1.25, 1)], judged(NOW), young(30 * MINUTE, 4))).toEqual([]);
    // Two hours old, 4 spends all in its first hour: usual 2 an hour, 1 in the last hour (this one).
    expect(evaluateGuard([rule.velocity(1, 1)], judged(NOW), young(2 * HOUR_MS, 4))).toEqual([]);
    // Its registration ahead of this instance's clock: still at least an hour.
    const ahead = foldGuardHistory([registered(AGENT_A, undefined, NOW + MINUTE), spend('1', NOW)]);
    expect(evaluateGuard([rule.velocity(1, 1)], judged(NOW), ahead)[0]?.figures.usual).toBe('1');
  });

  it('the hour ends at the millisecond: a spend at now - 1 h is out, at now - 1 h + 1 in', () => {
    const count = (at: number) =>
      evaluateGuard([rule.velocity(1, 1)], judged(NOW), history([spend('1', at)]))[0]?.figures.count;
    expect(count(NOW - HOUR_MS)).toBe(1);
    expect(count(NOW - HOUR_MS + 1)).toBe(2);
    // Ahead of this instance's clock (another instance's): in the hour.
    expect(count(NOW + 5 * MINUTE)).toBe(2);
  });

  it('the week ends at the millisecond: a spend at now - 168 h is out of the usual count', () => {
    const usual = (at: number) =>
      evaluateGuard([rule.velocity(1, 1)], judged(NOW), history([spend('1', at)]))[0]?.figures.usual;
    expect(usual(NOW - WEEK)).toBe('0');
    expect(usual(NOW - WEEK + 1)).toBe('0.01'); // 1 / 168
  });

  it('counts held and failed spends, not withdrawals', () => {
    const h = history([
      spend('1', NOW - MINUTE, { held: true }),
      spend('1', NOW - MINUTE, { id: 'f' }),
      failed('f', NOW - MINUTE),
      spend('1', NOW - MINUTE, { action: 'withdraw' }),
    ]);
    expect(evaluateGuard([rule.velocity(1, 1)], judged(NOW), h)[0]?.figures.count).toBe(3);
  });
});

describe('burst', () => {
  const r = rule.burst(600, '0.5');

  it('trips strictly above the fraction of the daily limit, this spend included', () => {
    const h = history([spend('20', NOW - 5 * MINUTE), spend('20', NOW - 9 * MINUTE)]);
    expect(evaluateGuard([r], judged(NOW, { value: new Big(10) }), h)).toEqual([]);
    expect(evaluateGuard([r], judged(NOW, { value: new Big('10.000001') }), h)).toEqual([
      {
        rule: 'burst',
        action: 'hold',
        figures: { value_in_window: '50.000001', daily_limit: '100', fraction: '0.5', window_seconds: 600 },
        words: '50.000001 spent in the last 10 minutes, above 50 (0.5 of the daily limit of 100)',
      },
    ]);
  });

  it('the window ends at the millisecond, and counts spends ahead of now', () => {
    const value = (events: AgentEvent[]) =>
      evaluateGuard([rule.burst(600, '0.000001')], judged(NOW), history(events))[0]?.figures.value_in_window;
    expect(value([spend('7', NOW - 600_000)])).toBe('1');
    expect(value([spend('7', NOW - 599_999)])).toBe('8');
    expect(value([spend('7', NOW + 30_000)])).toBe('8');
    // A 24-hour window over hours of history.
    const day = rule.burst(86_400, '0.000001');
    const h = history([
      spend('2', NOW - DAY_MS),
      spend('3', NOW - DAY_MS + 1),
      spend('4', NOW - 12 * HOUR_MS),
    ]);
    expect(evaluateGuard([day], judged(NOW), h)[0]?.figures.value_in_window).toBe('8');
  });

  it('counts held and confirmed spends, not failed ones nor withdrawals', () => {
    const h = history([
      spend('10', NOW - MINUTE, { held: true }),
      spend('20', NOW - MINUTE, { id: 'ok' }),
      confirmed('ok', NOW),
      spend('40', NOW - MINUTE, { id: 'ko' }),
      failed('ko', NOW),
      spend('80', NOW - MINUTE, { action: 'withdraw' }),
    ]);
    expect(evaluateGuard([rule.burst(600, '0.01')], judged(NOW), h)[0]?.figures.value_in_window).toBe('31');
  });
});

describe('new counterparty and new token', () => {
  const rules: GuardRule[] = [
    { kind: 'new_counterparty', action: 'hold' },
    { kind: 'new_token', action: 'freeze_agent' },
  ];
  const kinds = (events: AgentEvent[], o: Partial<GuardSpend> = {}) =>
    evaluateGuard(rules, judged(NOW, o), history(events)).map((t) => t.rule);

  it('trip until a spend to that entry, of that mint, is confirmed', () => {
    expect(kinds([])).toEqual(['new_counterparty', 'new_token']);
    expect(kinds([spend('1', NOW - DAY_MS, { id: 'a' })])).toEqual(['new_counterparty', 'new_token']);
    expect(kinds([spend('1', NOW - DAY_MS, { id: 'a' }), failed('a', NOW)])).toEqual([
      'new_counterparty',
      'new_token',
    ]);
    expect(kinds([spend('1', NOW - DAY_MS, { id: 'a' }), confirmed('a', NOW)])).toEqual([]);
  });

  it('know entries and mints apart, and forever', () => {
    const events = [
      spend('1', NOW - 60 * DAY_MS, { id: 'a', entry: 'e1', mint: OTHER_MINT }),
      confirmed('a', NOW - 60 * DAY_MS),
      ...Array.from({ length: 30 }, (_, k) => spend('1', NOW - k * DAY_MS)),
    ];
    expect(kinds(events, { entry_id: 'e1' })).toEqual(['new_token']);
    expect(kinds(events, { mint: OTHER_MINT })).toEqual(['new_counterparty']);
    const [trip] = evaluateGuard(rules, judged(NOW, { entry_id: 'e2' }), history(events));
    expect(trip).toEqual({
      rule: 'new_counterparty',
      action: 'hold',
      figures: { entry_id: 'e2' },
      words: "the agent's first spend to allow-list entry e2",
    });
  });

  it('a confirmed withdrawal teaches nothing; a spend to another agent is no new counterparty', () => {
    expect(kinds([spend('1', NOW - HOUR_MS, { id: 'w', action: 'withdraw' }), confirmed('w', NOW)])).toEqual([
      'new_counterparty',
      'new_token',
    ]);
    expect(kinds([], { entry_type: 0 })).toEqual(['new_token']);
    expect(kinds([], { entry_type: 1 })).toEqual(['new_counterparty', 'new_token']);
  });
});

describe('refusals', () => {
  const r = rule.refusals(3, 600);

  it('freezes when the refusals in the window, this one included, reach the count', () => {
    const one = history([blocked('daily_limit_exceeded', NOW - MINUTE)]);
    expect(refusalTrip([r], NOW, one)).toBeUndefined();
    const two = evolveGuardHistory(one, blocked('whitelist_violation', NOW - 30_000));
    expect(refusalTrip([r], NOW, two)).toEqual({
      rule: 'refusals',
      action: 'freeze_agent',
      figures: { refusals: 3, count: 3, window_seconds: 600 },
      words: '3 spends refused in the last 10 minutes: the rule freezes at 3',
    });
    expect(refusalTrip([], NOW, two)).toBeUndefined();
    // A refusal is no spend: evaluateGuard never answers it.
    expect(evaluateGuard([r], judged(NOW), two)).toEqual([]);
  });

  it('counts only refusals by a policy check (403), not input errors, 401s or freezes', () => {
    const codes: BlockCode[] = [
      'unauthorized',
      'invalid_amount',
      'recipient_invalid',
      'agent_frozen',
      'group_frozen',
    ];
    const h = history(codes.map((c) => blocked(c, NOW - MINUTE)));
    expect(refusalTrip([rule.refusals(2, 600)], NOW, h)).toBeUndefined();
    const policy: BlockCode[] = [
      'whitelist_violation',
      'whitelist_expired',
      'whitelist_amount_exhausted',
      'per_tx_limit_exceeded',
      'daily_limit_exceeded',
      'hourly_cap_exceeded',
      'group_daily_limit_exceeded',
      'group_hourly_tx_cap_exceeded',
    ];
    const p = history(policy.map((c) => blocked(c, NOW - MINUTE)));
    expect(refusalTrip([rule.refusals(9, 600)], NOW, p)?.figures.refusals).toBe(9);
  });

  it('the window ends at the millisecond, and counts refusals ahead of now', () => {
    const trips = (at: number) =>
      refusalTrip([rule.refusals(2, 60)], NOW, history([blocked('daily_limit_exceeded', at)]));
    expect(trips(NOW - 60_000)).toBeUndefined();
    expect(trips(NOW - 59_999)).toBeDefined();
    expect(trips(NOW + 10_000)).toBeDefined();
  });
});

describe('quiet hours', () => {
  const trips = (r: GuardRule, at: number) => evaluateGuard([r], judged(at), emptyGuardHistory);
  const utc = (iso: string) => Date.parse(iso);

  it('across midnight: from inclusive, to exclusive', () => {
    const r = rule.quiet('22:00', '06:00', 'UTC');
    expect(trips(r, utc('2026-01-05T21:59:59.999Z'))).toEqual([]);
    expect(trips(r, utc('2026-01-05T22:00:00.000Z'))).toEqual([
      {
        rule: 'quiet_hours',
        action: 'hold',
        figures: { local_time: '22:00', from: '22:00', to: '06:00', time_zone: 'UTC' },
        words: 'a spend at 22:00 (UTC), inside the quiet hours 22:00 to 06:00',
      },
    ]);
    expect(trips(r, utc('2026-01-06T00:00:00.000Z'))).toHaveLength(1);
    expect(trips(r, utc('2026-01-06T05:59:59.999Z'))).toHaveLength(1);
    expect(trips(r, utc('2026-01-06T06:00:00.000Z'))).toEqual([]);
    expect(trips(r, utc('2026-01-06T12:00:00.000Z'))).toEqual([]);
  });

  it('within a day, and never when from equals to', () => {
    const r = rule.quiet('09:30', '17:00', 'UTC');
    expect(trips(r, utc('2026-01-05T09:29:00Z'))).toEqual([]);
    expect(trips(r, utc('2026-01-05T09:30:00Z'))).toHaveLength(1);
    expect(trips(r, utc('2026-01-05T16:59:00Z'))).toHaveLength(1);
    expect(trips(r, utc('2026-01-05T17:00:00Z'))).toEqual([]);
    const never = rule.quiet('08:00', '08:00', 'UTC');
    for (let m = 0; m < 24 * 60; m += 7)
      expect(trips(never, utc('2026-01-05T00:00:00Z') + m * MINUTE)).toEqual([]);
  });

  it("reads the zone's wall clock, half-hour offsets included", () => {
    const r = rule.quiet('22:00', '06:00', 'Asia/Kolkata'); // UTC+05:30
    expect(trips(r, utc('2026-01-05T16:29:00Z'))).toEqual([]); // 21:59
    expect(trips(r, utc('2026-01-05T16:30:00Z'))[0]?.figures.local_time).toBe('22:00');
    expect(trips(r, utc('2026-01-06T00:29:00Z'))).toHaveLength(1); // 05:59
    expect(trips(r, utc('2026-01-06T00:30:00Z'))).toEqual([]); // 06:00
  });

  it("follows New York's clock on the days it changes", () => {
    const r = rule.quiet('22:00', '06:00', 'America/New_York');
    // 9 March 2024, standard time (UTC-5): 05:30 local is quiet.
    expect(trips(r, utc('2024-03-09T10:30:00Z'))[0]?.figures.local_time).toBe('05:30');
    // 10 March 2024, clocks forward at 02:00: 10:30Z is 06:30 EDT, not quiet (a fixed -5 would say 05:30).
    expect(trips(r, utc('2024-03-10T09:59:00Z'))[0]?.figures.local_time).toBe('05:59');
    expect(trips(r, utc('2024-03-10T10:00:00Z'))).toEqual([]);
    expect(trips(r, utc('2024-03-10T10:30:00Z'))).toEqual([]);
    // The skipped hour never happens that night.
    const skipped = rule.quiet('02:00', '03:00', 'America/New_York');
    for (let t = utc('2024-03-10T05:00:00Z'); t < utc('2024-03-10T09:00:00Z'); t += MINUTE)
      expect(trips(skipped, t)).toEqual([]);
    // 3 November 2024, clocks back at 02:00: 01:30 happens twice, quiet both times.
    const repeated = rule.quiet('01:00', '02:00', 'America/New_York');
    expect(trips(repeated, utc('2024-11-03T05:30:00Z'))[0]?.figures.local_time).toBe('01:30'); // EDT
    expect(trips(repeated, utc('2024-11-03T06:30:00Z'))[0]?.figures.local_time).toBe('01:30'); // EST
    expect(trips(repeated, utc('2024-11-03T07:00:00Z'))).toEqual([]); // 02:00 EST
  });

  it('reads the clock again at each minute, the same within one, in every zone one after another', () => {
    const r = rule.quiet('22:00', '06:00', 'UTC');
    const kolkata = rule.quiet('22:00', '06:00', 'Asia/Kolkata');
    // The spends of a burst share their minute; the next minute is read again, each zone its own.
    expect(trips(r, utc('2026-01-05T21:59:00.000Z'))).toEqual([]);
    expect(trips(kolkata, utc('2026-01-05T21:59:10.000Z'))).toHaveLength(1); // 03:29 there
    expect(trips(r, utc('2026-01-05T21:59:59.999Z'))).toEqual([]);
    expect(trips(r, utc('2026-01-05T22:00:00.000Z'))).toHaveLength(1);
    expect(trips(r, utc('2026-01-05T21:59:30.000Z'))).toEqual([]); // back a minute: read again
  });

  it('an offset of seconds (before 1972) moves the local minute inside a UTC minute: read every time', () => {
    // Monrovia kept -0:44:30 until 1972: 12:00:00Z is 11:15:30 there, 12:00:45Z is 11:16:15.
    const r = rule.quiet('11:16', '12:00', 'Africa/Monrovia');
    expect(trips(r, utc('1960-06-01T12:00:00Z'))).toEqual([]);
    expect(trips(r, utc('1960-06-01T12:00:45Z'))[0]?.figures.local_time).toBe('11:16');
  });
});

describe('clocks that disagree', () => {
  it('an instance an hour behind the latest event still sees the whole week and the whole day', () => {
    const now = NOW + 50 * MINUTE;
    const h = history([
      spend('3', now - WEEK + 1),
      spend('5', now - DAY_MS + 1),
      blocked('daily_limit_exceeded', now - DAY_MS + 1),
      // Another instance, 59 minutes ahead: the history is pruned from its time.
      spend('7', now + 59 * MINUTE),
    ]);
    const trips = evaluateGuard([rule.velocity(1, 1), rule.burst(86_400, '0.000001')], judged(now), h);
    expect(trips.map((t) => t.figures)).toEqual([
      { count: 2, usual: '0.02', factor: 1, min_count: 1 }, // 3 spends in the week
      { value_in_window: '13', daily_limit: '100', fraction: '0.000001', window_seconds: 86_400 },
    ]);
    expect(refusalTrip([rule.refusals(2, 86_400)], now, h)?.figures.refusals).toBe(2);
  });
});

describe('a long log, pruned as it folds', () => {
  /** A deterministic pseudo-random sequence (a linear congruential generator). */
  function random(seed: number) {
    let s = seed;
    return () => {
      s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
      return s / 2 ** 31;
    };
  }

  it('answers what a recount of the raw events answers, and stays small', () => {
    const next = random(42);
    const start = T0;
    const events: AgentEvent[] = [registered(AGENT_A, undefined, start)];
    const open: string[] = [];
    let clock = start;
    let h = foldGuardHistory(events);
    const push = (e: AgentEvent) => {
      events.push(e);
      h = evolveGuardHistory(h, e);
    };
    const rules = [rule.velocity(1.5, 1), rule.burst(3600, '0.000001'), rule.refusals(1, 1800)];
    const naive = (now: number) => {
      const spends = events.flatMap((e) =>
        e.type === 'intent.accepted' && e.data.action !== 'withdraw' ? [e.data] : [],
      );
      const failedIds = new Set(
        events.flatMap((e) => (e.type === 'intent.failed' ? [e.data.intent_id] : [])),
      );
      const inside = (at: number, span: number) => now - at < span;
      const count = spends.filter((s) => inside(s.at, HOUR_MS)).length + 1;
      const baseline = spends.filter((s) => inside(s.at, WEEK)).length;
      const span = Math.min(WEEK, Math.max(HOUR_MS, now - start));
      const value = spends
        .filter((s) => inside(s.at, HOUR_MS) && !failedIds.has(s.intent_id))
        .reduce((sum, s) => sum.plus(s.value), new Big(1));
      const refusals =
        events.filter(
          (e) =>
            e.type === 'intent.blocked' &&
            e.data.code === 'hourly_cap_exceeded' &&
            inside(e.data.at, 1800_000),
        ).length + 1;
      return {
        velocity: new Big(count).times(span).gt(new Big(1.5).times(baseline).times(HOUR_MS))
          ? count
          : undefined,
        value: value.toFixed(),
        refusals,
      };
    };
    let checks = 0;
    for (let step = 0; step < 6500; step++) {
      clock += Math.floor(next() * 15 * MINUTE);
      // Another instance's clock: up to 20 minutes either side.
      const at = clock + Math.floor((next() - 0.5) * 40 * MINUTE);
      const roll = next();
      if (roll < 0.6) {
        const id = `i${step}`;
        push(
          spend(String(1 + Math.floor(next() * 50)), at, {
            id,
            action: next() < 0.1 ? 'withdraw' : 'transfer',
          }),
        );
        open.push(id);
      } else if (roll < 0.85 && open.length) {
        const id = open.splice(Math.floor(next() * open.length), 1)[0]!;
        push(next() < 0.7 ? confirmed(id, at) : failed(id, at));
      } else push(blocked(next() < 0.8 ? 'hourly_cap_exceeded' : 'unauthorized', at));
      if (step % 97 === 0) {
        const now = clock + Math.floor((next() - 0.3) * HOUR_MS);
        const want = naive(now);
        const got = evaluateGuard(rules, judged(now), h);
        expect(got.find((t) => t.rule === 'velocity')?.figures.count).toBe(want.velocity);
        expect(got.find((t) => t.rule === 'burst')?.figures.value_in_window).toBe(want.value);
        expect(refusalTrip(rules, now, h)?.figures.refusals).toBe(want.refusals);
        checks += 1;
      }
    }
    expect(clock - start).toBeGreaterThan(28 * DAY_MS);
    expect(checks).toBeGreaterThan(60);
    // 168 h + a margin of hours, and a day and an hour of refusals: not the month of the log.
    expect(h.hours.length).toBeLessThanOrEqual(171);
    expect(h.hours.filter((hour) => hour.items.length > 0).length).toBeLessThanOrEqual(27);
    expect(h.refusals.length).toBeLessThan(200);
    expect(h.hours.reduce((total, hour) => total + hour.ats.length, 0)).toBeLessThan(1500);
  });
});

describe('parseGuardRules', () => {
  const all = [
    { kind: 'velocity', factor: 3, min_count: 5, action: 'hold' },
    { kind: 'burst', window_seconds: 600, fraction: '0.5', action: 'freeze_agent' },
    { kind: 'new_counterparty', action: 'hold' },
    { kind: 'new_token', action: 'hold' },
    { kind: 'refusals', count: 5, window_seconds: 3600, action: 'freeze_agent' },
    { kind: 'quiet_hours', from: '22:00', to: '06:00', time_zone: 'Europe/Paris', action: 'hold' },
  ];

  it('takes every kind, in the wire shape', () => {
    const rules = parseGuardRules({ rules: all });
    expect(rules).toEqual(all);
    expect(JSON.parse(JSON.stringify(rules))).toEqual(all);
    expect(parseGuardRules({ rules: [] })).toEqual([]);
    expect(parseGuardRules(all)).toEqual(all);
  });

  it('reads decimals from numbers or text, and names the zone as Intl does', () => {
    const [velocity, burst, quiet] = parseGuardRules({
      rules: [
        { kind: 'velocity', factor: '1.5', min_count: 1, action: 'hold' },
        { kind: 'burst', window_seconds: 60, fraction: 0.25, action: 'hold' },
        { kind: 'quiet_hours', from: '00:00', to: '23:59', time_zone: 'america/new_york', action: 'hold' },
      ],
    });
    expect(velocity).toMatchObject({ factor: 1.5 });
    expect(burst).toMatchObject({ fraction: '0.25' });
    expect(quiet).toMatchObject({ time_zone: 'America/New_York' });
  });

  const paths = (input: unknown): { path: string; issue: string }[] => {
    try {
      parseGuardRules(input);
    } catch (err) {
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).code).toBe('validation_error');
      return (err as ServiceError).details ?? [];
    }
    throw new Error('accepted');
  };
  const one = (r: Record<string, unknown>) => paths({ rules: [r] }).map((d) => d.path);
  const v = { kind: 'velocity', factor: 2, min_count: 3, action: 'hold' };
  const b = { kind: 'burst', window_seconds: 600, fraction: '0.5', action: 'hold' };
  const f = { kind: 'refusals', count: 3, window_seconds: 600, action: 'freeze_agent' };
  const q = { kind: 'quiet_hours', from: '22:00', to: '06:00', time_zone: 'UTC', action: 'hold' };

  it('names the field of every bad value', () => {
    expect(paths(null).map((d) => d.path)).toEqual(['']);
    expect(paths({ rules: 'velocity' }).map((d) => d.path)).toEqual(['/rules']);
    expect(paths({ rules: [], extra: 1 }).map((d) => d.path)).toEqual(['/extra']);
    expect(paths({ rules: [7] }).map((d) => d.path)).toEqual(['/rules/0']);
    expect(one({ kind: 'speed', action: 'hold' })).toEqual(['/rules/0/kind']);
    expect(one({ ...v, window_seconds: 60 })).toEqual(['/rules/0/window_seconds']);
    expect(one({ ...v, 'a/b': 1 })).toEqual(['/rules/0/a~1b']);
    expect(one({ ...v, action: 'block' })).toEqual(['/rules/0/action']);
    expect(one({ kind: 'new_token' })).toEqual(['/rules/0/action']);
    expect(one({ ...f, action: 'hold' })).toEqual(['/rules/0/action']);
    const { factor: _f, ...noFactor } = v;
    expect(paths({ rules: [noFactor] })).toEqual([{ path: '/rules/0/factor', issue: 'required' }]);
    const twice = paths({ rules: [v, b, { ...v, factor: 5 }] });
    expect(twice).toEqual([{ path: '/rules/2/kind', issue: 'a second velocity rule: one rule of a kind' }]);
    // Every bad field at once.
    expect(
      paths({
        rules: [
          { ...v, factor: 0, min_count: 0 },
          { ...b, fraction: '2' },
        ],
      }).map((d) => d.path),
    ).toEqual(['/rules/0/factor', '/rules/0/min_count', '/rules/1/fraction']);
  });

  it('holds the bounds at their edges', () => {
    const ok = (r: Record<string, unknown>) => expect(parseGuardRules({ rules: [r] })).toHaveLength(1);
    ok({ ...v, factor: 1 });
    ok({ ...v, factor: 1000 });
    ok({ ...v, factor: '2.000001' });
    expect(one({ ...v, factor: 0.999999 })).toEqual(['/rules/0/factor']);
    expect(one({ ...v, factor: 1000.5 })).toEqual(['/rules/0/factor']);
    expect(one({ ...v, factor: '2.0000001' })).toEqual(['/rules/0/factor']);
    expect(one({ ...v, factor: 'two' })).toEqual(['/rules/0/factor']);
    ok({ ...v, min_count: 1000 });
    expect(one({ ...v, min_count: 1001 })).toEqual(['/rules/0/min_count']);
    expect(one({ ...v, min_count: 2.5 })).toEqual(['/rules/0/min_count']);
    expect(one({ ...v, min_count: '3' })).toEqual(['/rules/0/min_count']);
    ok({ ...b, fraction: '1' });
    ok({ ...b, fraction: '0.000001' });
    expect(one({ ...b, fraction: '0' })).toEqual(['/rules/0/fraction']);
    expect(one({ ...b, fraction: '1.000001' })).toEqual(['/rules/0/fraction']);
    expect(one({ ...b, fraction: '-0.5' })).toEqual(['/rules/0/fraction']);
    ok({ ...b, window_seconds: 60 });
    ok({ ...b, window_seconds: 86_400 });
    expect(one({ ...b, window_seconds: 59 })).toEqual(['/rules/0/window_seconds']);
    expect(one({ ...b, window_seconds: 86_401 })).toEqual(['/rules/0/window_seconds']);
    ok({ ...f, count: 1 });
    ok({ ...f, count: 1000 });
    expect(one({ ...f, count: 0 })).toEqual(['/rules/0/count']);
    expect(one({ ...f, count: 1001 })).toEqual(['/rules/0/count']);
    expect(one({ ...f, window_seconds: 30 })).toEqual(['/rules/0/window_seconds']);
    ok({ ...q, from: '00:00', to: '23:59' });
    expect(one({ ...q, from: '24:00' })).toEqual(['/rules/0/from']);
    expect(one({ ...q, to: '7:00' })).toEqual(['/rules/0/to']);
    expect(one({ ...q, to: '07:60' })).toEqual(['/rules/0/to']);
    expect(one({ ...q, time_zone: 'Mars/Olympus_Mons' })).toEqual(['/rules/0/time_zone']);
    expect(one({ ...q, time_zone: '' })).toEqual(['/rules/0/time_zone']);
  });
});

describe('guardLoosens', () => {
  const v = rule.velocity(3, 5);
  const b = rule.burst(600, '0.5');
  const f = rule.refusals(5, 600);
  const q = rule.quiet('22:00', '06:00', 'UTC');
  const c: GuardRule = { kind: 'new_counterparty', action: 'freeze_agent' };
  const before = [v, b, f, q, c];
  const replaced = (r: GuardRule) => before.map((x) => (x.kind === r.kind ? r : x));

  it('adding rules, keeping them, or tightening applies at once', () => {
    expect(guardLoosens([], before)).toBe(false);
    expect(guardLoosens(before, before)).toBe(false);
    expect(guardLoosens(before, [...before].reverse())).toBe(false);
    expect(guardLoosens(before, [...before, { kind: 'new_token', action: 'hold' }])).toBe(false);
    for (const tighter of [
      rule.velocity(2.5, 5),
      rule.velocity(3, 1),
      rule.burst(600, '0.25'),
      rule.burst(3600, '0.5'),
      rule.refusals(2, 600),
      rule.refusals(5, 3600),
      { ...v, action: 'freeze_agent' } as GuardRule,
    ])
      expect(guardLoosens(before, replaced(tighter))).toBe(false);
  });

  it('removing a rule, loosening it, or holding where it froze is a proposal', () => {
    for (const kind of before.map((r) => r.kind))
      expect(
        guardLoosens(
          before,
          before.filter((r) => r.kind !== kind),
        ),
      ).toBe(true);
    for (const looser of [
      rule.velocity(3.01, 5),
      rule.velocity(3, 6),
      rule.burst(600, '0.500001'),
      rule.burst(599, '0.5'),
      rule.refusals(6, 600),
      rule.refusals(5, 60),
      rule.quiet('22:30', '06:00', 'UTC'),
      rule.quiet('21:00', '07:00', 'UTC'), // covers the old hours: still a proposal (kept simple)
      rule.quiet('22:00', '06:00', 'Europe/London'),
      { ...c, action: 'hold' } as GuardRule,
    ])
      expect(guardLoosens(before, replaced(looser))).toBe(true);
    // Tightening one rule does not hide loosening another.
    expect(
      guardLoosens(
        before,
        replaced(rule.velocity(2, 5)).map((r) => (r.kind === 'burst' ? rule.burst(60, '0.5') : r)),
      ),
    ).toBe(true);
  });
});

describe('decideGuard', () => {
  const velocity: GuardRule = { kind: 'velocity', factor: 5, min_count: 10, action: 'hold' };
  it('sets the rules, or records nothing when they are in force already, whatever order their keys came back in', () => {
    expect(decideGuard({ group_id: 'g', rules: [velocity], now: 7 }, [])).toEqual([
      { type: 'group.guard_set', data: { group_id: 'g', rules: [velocity], at: 7 } },
    ]);
    const stored = JSON.parse('{"action":"hold","factor":5,"kind":"velocity","min_count":10}') as GuardRule;
    expect(decideGuard({ group_id: 'g', rules: [velocity], now: 7 }, [stored])).toEqual([]);
    expect(decideGuard({ group_id: 'g', rules: [], now: 7 }, [stored])).toHaveLength(1);
    expect(Object.keys(inReadingOrder(stored))).toEqual(['kind', 'factor', 'min_count', 'action']);
  });
});

describe('the edges of the guard’s input', () => {
  const detailsOf = (input: unknown) => {
    try {
      parseGuardRules(input);
    } catch (err) {
      expect(err).toBeInstanceOf(ServiceError);
      return (err as ServiceError).details!.map((d) => d.path);
    }
    throw new Error('accepted');
  };
  it('names an unknown field by its JSON Pointer, escaping ~ and /', () => {
    expect(detailsOf({ rules: [], 'a~b/c': 1 })).toEqual(['/a~0b~1c']);
  });
  it('counts a decimal’s places exactly, however large it is', () => {
    const [v] = parseGuardRules([{ kind: 'velocity', factor: '999.999999', min_count: 1, action: 'hold' }]);
    expect(v).toMatchObject({ factor: 999.999999 });
    expect(detailsOf([{ kind: 'velocity', factor: '1.0000001', min_count: 1, action: 'hold' }])).toEqual([
      '/rules/0/factor',
    ]);
  });
  it('takes neither a list for a number nor a list for a time (their text would pass)', () => {
    expect(detailsOf([{ kind: 'velocity', factor: ['2'], min_count: 1, action: 'hold' }])).toEqual([
      '/rules/0/factor',
    ]);
    expect(
      detailsOf([{ kind: 'quiet_hours', from: ['22:00'], to: '06:00', time_zone: 'UTC', action: 'hold' }]),
    ).toEqual(['/rules/0/from']);
  });
  it('other quiet hours loosen, whichever end moved', () => {
    const q: GuardRule = {
      kind: 'quiet_hours',
      from: '22:00',
      to: '06:00',
      time_zone: 'UTC',
      action: 'hold',
    };
    expect(guardLoosens([q], [{ ...q, to: '07:00' }])).toBe(true);
    expect(guardLoosens([q], [{ ...q, from: '21:00' }])).toBe(true);
    expect(guardLoosens([q], [{ ...q, time_zone: 'Europe/Paris' }])).toBe(true);
  });
});
