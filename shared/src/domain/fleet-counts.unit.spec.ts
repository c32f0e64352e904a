/**
 * The preview's count of what a group's agents spent (fleet-counts.ts) answers what the group's spends
 * stream answers (group-limits.ts: evolveGroupSpends over a Windows) for generated histories: counts
 * and releases in any order (an intent counted twice, a release of one never counted or released
 * already), clocks up to half an hour off and intents recorded up to two hours late, and questions at `now`s within half an hour of the latest
 * event and at the millisecond an intent leaves a window; groupRoom on either gives the same room.
 */
import Big from 'big.js';
import fc from 'fast-check';
import type { GroupSpendsEvent } from './events';
import { FleetCounts } from './fleet-counts';
import { evolveGroupSpends, groupRoom, initialGroupSpends } from './group-limits';
import { DAY_MS, HOUR_MS } from './time';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);
const T0 = Date.UTC(2026, 10, 20, 12);
// The stream keeps an intent 25 hours from the latest count (clocks up to half an hour off): its
// answers are exact for a `now` up to half an hour before the clock, and are asked there.
const HALF_HOUR = 30 * 60_000;

type Step =
  | { kind: 'count'; id: number; wait: number; skew: number; value: number; spends: boolean }
  | { kind: 'release'; id: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('count' as const),
    id: fc.nat(40),
    wait: fc.oneof(fc.nat(1000), fc.nat(10 * 60_000), fc.nat(3 * HOUR_MS)),
    // Late: an intent of another instance's clock, or one recorded well after (before a window's edge).
    skew: fc.oneof(
      fc.integer({ min: -HALF_HOUR, max: HALF_HOUR }),
      fc.integer({ min: -2 * HOUR_MS, max: 0 }),
    ),
    value: fc.nat(10_000),
    spends: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('release' as const), id: fc.nat(40) }),
);

describe('the preview’s count of a fleet’s spends', () => {
  it('answers what the group’s spends stream answers, at every step', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 80 }),
        fc.array(fc.integer({ min: -HALF_HOUR, max: HALF_HOUR })),
        (steps, asks) => {
          const counts = new FleetCounts();
          let stream = initialGroupSpends();
          let clock = T0;
          const ats: number[] = [];
          for (const s of steps) {
            let event: GroupSpendsEvent;
            if (s.kind === 'count') {
              clock += s.wait;
              const at = clock + s.skew;
              ats.push(at);
              const data = {
                group_id: 'g',
                intent_id: `i${s.id}`,
                agent_id: `a${s.id % 3}`,
                value: String(s.value / 100),
                spends: s.spends,
                at,
              };
              event = { type: 'group.spend_counted', data };
              counts.counted(data);
            } else {
              event = {
                type: 'group.spend_released',
                data: { group_id: 'g', intent_id: `i${s.id}`, at: clock },
              };
              counts.released(`i${s.id}`);
            }
            stream = evolveGroupSpends(stream, event);
            // Around now, and where each intent leaves the daily and the hourly window.
            const nows = [
              ...asks.map((d) => clock + d),
              ...ats
                .filter((at) => at > clock - 2 * HOUR_MS)
                .flatMap((at) => [at + HOUR_MS, at + HOUR_MS - 1]),
              ...ats
                .flatMap((at) => [at + DAY_MS, at + DAY_MS - 1])
                .filter((t) => Math.abs(t - clock) <= HALF_HOUR),
            ];
            for (const now of nows) {
              expect(counts.spent(now, DAY_MS, 'counted').toFixed()).toBe(
                stream.intents.spent(now, DAY_MS, 'counted').toFixed(),
              );
              expect(counts.ops(now, HOUR_MS, 'counted')).toBe(stream.intents.ops(now, HOUR_MS, 'counted'));
            }
            for (let id = 0; id <= 40; id += 7) {
              const [mine, theirs] = [counts.get(`i${id}`), stream.intents.get(`i${id}`)];
              expect(mine && { ...mine, value: mine.value.toFixed() }).toEqual(
                theirs && { ...theirs, value: theirs.value.toFixed() },
              );
            }
            const limits = { daily_limit: new Big(500), hourly_tx_cap: 5 };
            const room = (r: ReturnType<typeof groupRoom>) => ({
              ...r,
              daily_remaining: r.daily_remaining?.toFixed(),
            });
            expect(room(groupRoom(limits, { intents: counts }, clock, 'i3'))).toEqual(
              room(groupRoom(limits, stream, clock, 'i3')),
            );
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
