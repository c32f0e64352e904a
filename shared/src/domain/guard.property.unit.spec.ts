/**
 * Property tests of the guard: for generated event sequences (spends to a few entries in a few mints,
 * withdrawals, held spends, confirmations and failures in any order, refusals of every code, clocks
 * of other instances up to half an hour off, waits from a millisecond to a week) and generated rules,
 * what evaluateGuard and refusalTrip answer over the folded (and pruned) history equals what a naive
 * reference answers by going through the raw list of events, after every step, at `now`s around the
 * latest event and at the exact millisecond an earlier event leaves a window.
 */
import Big from 'big.js';
import fc from 'fast-check';
import {
  accepted,
  AGENT_A,
  confirmed,
  failed,
  GROUP,
  registered,
  T0,
} from '@tokenops/testing/domain/fixtures';
import { ERROR_CATALOGUE } from '../errors';
import type { Action, AgentEvent, BlockCode } from './events';
import {
  emptyGuardHistory,
  evaluateGuard,
  evolveGuardHistory,
  refusalTrip,
  type GuardHistory,
  type GuardRule,
  type GuardSpend,
  type GuardTrip,
} from './guard';
import { DAY_MS, HOUR_MS } from './time';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);
const WEEK = 168 * HOUR_MS;
const ENTRIES = ['e0', 'e1', 'e2'];
const MINTS = ['m0', 'm1', 'm2'];
const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata'];
const CODES: BlockCode[] = [
  'whitelist_violation',
  'daily_limit_exceeded',
  'hourly_cap_exceeded',
  'group_daily_limit_exceeded',
  'unauthorized',
  'invalid_amount',
  'recipient_invalid',
  'agent_frozen',
  'group_frozen',
];

type Step =
  | { kind: 'spend'; entry: number; mint: number; action: Action; value: string; held: boolean; skew: number }
  | { kind: 'settle'; pick: number; confirmed: boolean; skew: number }
  | { kind: 'block'; code: BlockCode; skew: number }
  | { kind: 'wait'; ms: number };

/** Another instance's clock: up to half an hour either side of this one. */
const skew = fc.oneof(fc.constant(0), fc.integer({ min: -30 * 60_000, max: 30 * 60_000 }));
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('spend' as const),
      entry: fc.nat(ENTRIES.length - 1),
      mint: fc.nat(MINTS.length - 1),
      action: fc.constantFrom<Action>('transfer', 'transfer', 'swap', 'deposit', 'withdraw'),
      value: fc.constantFrom('0.000001', '1', '5', '12.5', '40'),
      held: fc.boolean(),
      skew,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      pick: fc.nat(),
      confirmed: fc.boolean(),
      skew,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('block' as const), code: fc.constantFrom(...CODES), skew }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.oneof(
        fc.constantFrom(
          1,
          60_000 - 1,
          HOUR_MS - 1,
          HOUR_MS,
          HOUR_MS + 1,
          DAY_MS,
          DAY_MS + HOUR_MS,
          WEEK - HOUR_MS,
          WEEK,
        ),
        fc.integer({ min: 0, max: 20 * 60_000 }),
        fc.integer({ min: 0, max: 30 * HOUR_MS }),
      ),
    }),
  },
);

const hhmm = fc
  .tuple(fc.nat(23), fc.constantFrom(0, 15, 30, 59))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const action = fc.constantFrom<'hold' | 'freeze_agent'>('hold', 'freeze_agent');
const window = fc.constantFrom(60, 600, 3600, 86_400);
const rules: fc.Arbitrary<GuardRule[]> = fc
  .record(
    {
      velocity: fc.record({
        kind: fc.constant('velocity' as const),
        factor: fc.constantFrom(1, 1.5, 2, 3, 10),
        min_count: fc.integer({ min: 1, max: 5 }),
        action,
      }),
      burst: fc.record({
        kind: fc.constant('burst' as const),
        window_seconds: window,
        fraction: fc.constantFrom('0.000001', '0.1', '0.5', '1'),
        action,
      }),
      new_counterparty: fc.record({ kind: fc.constant('new_counterparty' as const), action }),
      new_token: fc.record({ kind: fc.constant('new_token' as const), action }),
      refusals: fc.record({
        kind: fc.constant('refusals' as const),
        count: fc.integer({ min: 1, max: 4 }),
        window_seconds: window,
        action: fc.constant('freeze_agent' as const),
      }),
      quiet_hours: fc.record({
        kind: fc.constant('quiet_hours' as const),
        from: hhmm,
        to: hhmm,
        time_zone: fc.constantFrom(...ZONES),
        action,
      }),
    },
    { requiredKeys: [] },
  )
  .map((r) => Object.values(r) as GuardRule[]);

/** A `now` to judge at: around this instance's clock, or where an earlier event leaves a window. */
const probe = fc.record({
  offset: fc.oneof(
    fc.integer({ min: -30 * 60_000, max: 30 * 60_000 }),
    fc.integer({ min: 0, max: 26 * HOUR_MS }),
  ),
  /** From the earliest now the history answers exactly: an hour before the latest event. */
  early: fc.option(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: HOUR_MS }))),
  edge: fc.option(
    fc.record({
      event: fc.nat(),
      span: fc.constantFrom(HOUR_MS, WEEK, 60_000, 600_000, 3_600_000, DAY_MS),
      delta: fc.constantFrom(-1, 0, 1),
    }),
  ),
  entry: fc.nat(ENTRIES.length),
  mint: fc.nat(MINTS.length),
  entry_type: fc.constantFrom<0 | 1 | 2 | undefined>(undefined, 0, 1, 2),
  value: fc.constantFrom('0.000001', '1', '7', '30'),
  daily_limit: fc.constantFrom('0', '10', '100'),
});

// ---- the reference: the raw events, gone through one by one at each question ----

const atOf = (e: AgentEvent) => (e.data as { at: number }).at;

/** What happened to each spend: its acceptance and, once it came, its first outcome. */
function spendsOf(events: readonly AgentEvent[]) {
  const outcome = new Map<string, 'confirmed' | 'failed'>();
  for (const e of events)
    if ((e.type === 'intent.confirmed' || e.type === 'intent.failed') && !outcome.has(e.data.intent_id))
      outcome.set(e.data.intent_id, e.type === 'intent.confirmed' ? 'confirmed' : 'failed');
  return events.flatMap((e) =>
    e.type === 'intent.accepted' && e.data.action !== 'withdraw'
      ? [{ ...e.data, outcome: outcome.get(e.data.intent_id) }]
      : [],
  );
}

const inside = (at: number, now: number, span: number) => now - at < span;

function localTime(now: number, timeZone: string): string {
  // en-GB writes 24-hour time "HH:MM:SS" (a different route from the formatter guard.ts uses).
  return new Date(now)
    .toLocaleTimeString('en-GB', { timeZone, hour12: false })
    .slice(0, 5)
    .replace(/^24/, '00');
}

type Figures = Pick<GuardTrip, 'rule' | 'action' | 'figures'>;

function reference(rules: readonly GuardRule[], spend: GuardSpend, events: readonly AgentEvent[]): Figures[] {
  const spends = spendsOf(events);
  const born = events.find((e) => e.type === 'agent.registered');
  const now = spend.now;
  const out: Figures[] = [];
  for (const rule of rules) {
    if (rule.kind === 'velocity') {
      const count = spends.filter((s) => inside(s.at, now, HOUR_MS)).length + 1;
      const baseline = spends.filter((s) => inside(s.at, now, WEEK)).length;
      const age = born ? now - atOf(born) : WEEK;
      const span = Math.min(WEEK, Math.max(HOUR_MS, age));
      // count > factor x usual, usual = baseline x 1 h / span: both sides times span.
      const usual = new Big(baseline).times(HOUR_MS);
      if (new Big(count).times(span).gt(usual.times(String(rule.factor))) && count >= rule.min_count)
        out.push({
          rule: 'velocity',
          action: rule.action,
          figures: {
            count,
            usual: usual.div(span).round(2).toFixed(),
            factor: rule.factor,
            min_count: rule.min_count,
          },
        });
    } else if (rule.kind === 'burst') {
      const value = spends
        .filter((s) => s.outcome !== 'failed' && inside(s.at, now, rule.window_seconds * 1000))
        .reduce((sum, s) => sum.plus(s.value), spend.value);
      if (value.gt(new Big(rule.fraction).times(spend.daily_limit)))
        out.push({
          rule: 'burst',
          action: rule.action,
          figures: {
            value_in_window: value.toFixed(),
            daily_limit: spend.daily_limit.toFixed(),
            fraction: rule.fraction,
            window_seconds: rule.window_seconds,
          },
        });
    } else if (rule.kind === 'new_counterparty') {
      const known = spends.some((s) => s.outcome === 'confirmed' && s.entry_id === spend.entry_id);
      if (!known && spend.entry_type !== 0)
        out.push({ rule: 'new_counterparty', action: rule.action, figures: { entry_id: spend.entry_id } });
    } else if (rule.kind === 'new_token') {
      if (!spends.some((s) => s.outcome === 'confirmed' && s.mint === spend.mint))
        out.push({ rule: 'new_token', action: rule.action, figures: { mint: spend.mint } });
    } else if (rule.kind === 'quiet_hours') {
      const t = localTime(now, rule.time_zone);
      const [from, to] = [rule.from, rule.to];
      // HH:MM text compares as the time it names.
      const quiet = from < to ? t >= from && t < to : from > to ? t >= from || t < to : false;
      if (quiet)
        out.push({
          rule: 'quiet_hours',
          action: rule.action,
          figures: { local_time: t, from, to, time_zone: rule.time_zone },
        });
    }
  }
  return out;
}

/** A refusal by a policy check: a 403 that is not a freeze. */
const isPolicyRefusal = (code: BlockCode) =>
  ERROR_CATALOGUE[code].status === 403 && code !== 'agent_frozen' && code !== 'group_frozen';

function referenceRefusal(
  rules: readonly GuardRule[],
  now: number,
  events: readonly AgentEvent[],
): Figures | undefined {
  const rule = rules.find((r) => r.kind === 'refusals');
  if (rule?.kind !== 'refusals') return undefined;
  const refusals =
    events.filter(
      (e) =>
        e.type === 'intent.blocked' &&
        isPolicyRefusal(e.data.code) &&
        inside(e.data.at, now, rule.window_seconds * 1000),
    ).length + 1;
  return refusals >= rule.count
    ? {
        rule: 'refusals',
        action: 'freeze_agent',
        figures: { refusals, count: rule.count, window_seconds: rule.window_seconds },
      }
    : undefined;
}

// ---- the runs ----

function eventOf(s: Step, clock: number, id: string, open: string[]): AgentEvent | undefined {
  switch (s.kind) {
    case 'spend': {
      const e = accepted(id, s.value, clock + s.skew, s.action);
      if (e.type !== 'intent.accepted') return undefined;
      open.push(id);
      return {
        ...e,
        data: {
          ...e.data,
          entry_id: ENTRIES[s.entry]!,
          mint: MINTS[s.mint]!,
          ...(s.held && { held: { approval_id: `ap-${id}`, expires_at: clock + DAY_MS } }),
        },
      };
    }
    case 'settle': {
      if (open.length === 0) return undefined;
      const [picked] = open.splice(s.pick % open.length, 1);
      return s.confirmed ? confirmed(picked!, clock + s.skew) : failed(picked!, clock + s.skew);
    }
    case 'block':
      return {
        type: 'intent.blocked',
        data: {
          intent_id: id,
          agent_id: AGENT_A,
          group_id: GROUP,
          action: 'transfer',
          code: s.code,
          message: 'refused',
          attempted_amount: '1',
          mint: MINTS[0]!,
          counterparty: 'someone',
          at: clock + s.skew,
        },
      };
    case 'wait':
      return undefined;
  }
}

function holds(ok: boolean, what: () => string): void {
  if (!ok) throw new Error(what());
}
const json = (v: unknown) => JSON.stringify(v);

describe('guard properties', () => {
  it('over the folded history, evaluateGuard and refusalTrip answer what the raw events answer', () => {
    let asked = 0;
    const tripped = new Set<string>();
    const passed = new Set<string>();
    fc.assert(
      fc.property(
        fc.boolean(),
        rules,
        fc.array(fc.tuple(step, probe), { minLength: 1, maxLength: 50, size: 'max' }),
        (registers, rules, steps) => {
          const events: AgentEvent[] = registers ? [registered(AGENT_A, undefined, T0)] : [];
          let history: GuardHistory = events.reduce(evolveGuardHistory, emptyGuardHistory);
          let clock = T0;
          let latest = T0;
          const open: string[] = [];
          steps.forEach(([s, p], i) => {
            if (s.kind === 'wait') clock += s.ms;
            const event = eventOf(s, clock, `i${i}`, open);
            if (event) {
              events.push(event);
              history = evolveGuardHistory(history, event);
              latest = Math.max(latest, atOf(event));
            }
            const edge =
              p.edge && events.length
                ? atOf(events[p.edge.event % events.length]!) + p.edge.span + p.edge.delta
                : undefined;
            // The history answers exactly for any now up to an hour before the latest event.
            const now =
              edge !== undefined && edge >= latest - HOUR_MS
                ? edge
                : p.early !== null
                  ? latest - HOUR_MS + p.early
                  : clock + p.offset;
            const spend: GuardSpend = {
              entry_id: ENTRIES[p.entry] ?? 'e-new',
              ...(p.entry_type !== undefined && { entry_type: p.entry_type }),
              mint: MINTS[p.mint] ?? 'm-new',
              value: new Big(p.value),
              now,
              daily_limit: new Big(p.daily_limit),
            };
            const got = evaluateGuard(rules, spend, history).map(({ words: _w, ...t }) => t);
            const want = reference(rules, spend, events);
            holds(json(got) === json(want), () => `at ${now}: ${json(got)}, expected ${json(want)}`);
            const gotRefusal = refusalTrip(rules, now, history);
            const wantRefusal = referenceRefusal(rules, now, events);
            holds(
              json(
                gotRefusal && {
                  rule: gotRefusal.rule,
                  action: gotRefusal.action,
                  figures: gotRefusal.figures,
                },
              ) === json(wantRefusal),
              () => `refusals at ${now}: ${json(gotRefusal)}, expected ${json(wantRefusal)}`,
            );
            asked += 1;
            for (const r of rules)
              (got.some((t) => t.rule === r.kind) || (r.kind === 'refusals' && gotRefusal)
                ? tripped
                : passed
              ).add(r.kind);
          });
        },
      ),
      { numRuns: RUNS },
    );
    // Every rule both tripped and passed in the runs: the answers compared were not all empty.
    const kinds = ['velocity', 'burst', 'new_counterparty', 'new_token', 'refusals', 'quiet_hours'];
    expect(asked).toBeGreaterThan(RUNS);
    expect([...tripped].sort()).toEqual([...kinds].sort());
    expect([...passed].sort()).toEqual([...kinds].sort());
  });
});
