/**
 * The windows' running tallies against the plain definition: the sum, one by one, of the intents
 * kept. Generated histories accept intents at times that move forwards, backwards (another
 * instance's clock) and across hours, settle them in any order, prune them, and ask any window at
 * any time; after every step each answer equals the plain sum, and an earlier value is unchanged.
 */
import Big from 'big.js';
import fc from 'fast-check';
import { DAY_MS, HOUR_MS, inWindow } from './time';
import { Windows, type Counted, type WindowItem } from './windows';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 25);
const T0 = Date.UTC(2026, 10, 1, 12, 34, 56, 789);

/** The definition: every kept intent of `which`, one by one. */
function plain(windows: Windows, now: number, span: number, which: Counted) {
  let spent = new Big(0);
  let ops = 0;
  for (const item of windows.values()) {
    const counts = which === 'counted' ? item.status !== 'failed' : item.status === 'confirmed';
    if (counts && inWindow(item.at, now, span)) {
      if (item.spends) spent = spent.plus(item.value);
      ops += 1;
    }
  }
  return { spent: spent.toFixed(), ops };
}

const tallyOf = (windows: Windows, now: number, span: number, which: Counted) => {
  return { spent: windows.spent(now, span, which).toFixed(), ops: windows.ops(now, span, which) };
};

type Step =
  | { kind: 'accept'; dt: number; micros: number; spends: boolean }
  | { kind: 'settle'; pick: number; confirmed: boolean }
  | { kind: 'prune'; dt: number };

const accept = fc.record({
  kind: fc.constant('accept' as const),
  // Forwards by seconds to minutes (several intents an hour), sometimes hours; sometimes back (a skewed clock).
  dt: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 15 * 60_000 }), weight: 6 },
    { arbitrary: fc.integer({ min: 0, max: 3 * HOUR_MS }), weight: 1 },
    { arbitrary: fc.integer({ min: -5 * 60_000, max: 0 }), weight: 1 },
  ),
  micros: fc.integer({ min: 1, max: 5_000_000 }),
  spends: fc.boolean(),
});
const settle = fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), confirmed: fc.boolean() });
const prune = fc.record({
  kind: fc.constant('prune' as const),
  dt: fc.integer({ min: 0, max: 30 * HOUR_MS }),
});
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: accept, weight: 5 },
  { arbitrary: settle, weight: 4 },
  { arbitrary: prune, weight: 1 },
);

describe('the windows', () => {
  it('tally exactly what their intents add up to, in every window, at any time, and never change once made', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 100, maxLength: 250 }),
        fc.array(fc.integer({ min: -2 * HOUR_MS, max: 27 * HOUR_MS }), { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        (steps, asks, prunesOnAccept) => {
          let windows = Windows.empty;
          let clock = T0;
          let n = 0;
          for (const s of steps) {
            const [before, then] = [windows, clock];
            const beforeAnswer = tallyOf(before, then, DAY_MS, 'counted');
            if (s.kind === 'accept') {
              clock += s.dt;
              const item: WindowItem = {
                intentId: `i${n++}`,
                action: s.spends ? 'transfer' : 'withdraw',
                at: clock,
                value: new Big(s.micros).div(1_000_000),
                spends: s.spends,
                status: 'reserved',
              };
              // As an agent's fold does: what no window can count any more is dropped on each acceptance.
              if (prunesOnAccept) windows = windows.pruned(clock, DAY_MS + HOUR_MS);
              windows = windows.with(item);
            } else if (s.kind === 'settle') {
              const open = [...windows.values()].filter((i) => i.status === 'reserved');
              const item = open[s.pick % Math.max(1, open.length)];
              if (item) windows = windows.with({ ...item, status: s.confirmed ? 'confirmed' : 'failed' });
            } else {
              windows = windows.pruned(clock + s.dt, DAY_MS + HOUR_MS);
            }
            expect(tallyOf(before, then, DAY_MS, 'counted')).toEqual(beforeAnswer);
            // Besides the times asked, where some intents leave the windows (to the millisecond).
            const kept = [...windows.values()];
            const edges = [kept[kept.length >> 1]].flatMap((item) =>
              item
                ? [DAY_MS, HOUR_MS].flatMap((span) => [-1, 0, 1].map((d) => item.at + span + d - clock))
                : [],
            );
            for (const ask of [...asks, ...edges])
              for (const span of [DAY_MS, HOUR_MS])
                for (const which of ['counted', 'confirmed'] as const)
                  expect(tallyOf(windows, clock + ask, span, which)).toEqual(
                    plain(windows, clock + ask, span, which),
                  );
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('prune only settled intents, and only those `retention` or more before the time given', () => {
    const at = (h: number) => T0 + h * HOUR_MS;
    const item = (id: string, hours: number, status: WindowItem['status']): WindowItem => ({
      intentId: id,
      action: 'transfer',
      at: at(hours),
      value: new Big(1),
      spends: true,
      status,
    });
    const windows = Windows.empty
      .with(item('old-settled', 0, 'confirmed'))
      .with(item('old-failed', 0.5, 'failed'))
      .with(item('old-open', 0, 'reserved'))
      .with(item('young', 2, 'confirmed'));
    const later = windows.pruned(at(0.5) + DAY_MS - 1, DAY_MS);
    expect(new Set(later.keys())).toEqual(new Set(['old-failed', 'old-open', 'young']));
    expect(new Set(later.pruned(at(0.5) + DAY_MS, DAY_MS).keys())).toEqual(new Set(['old-open', 'young']));
    expect(new Set(windows.keys()).size).toBe(4);
    // In the order they were accepted: by hour (12:34 and 13:04 here), then as they came.
    expect([...windows.keys()]).toEqual(['old-settled', 'old-open', 'old-failed', 'young']);
  });
});
