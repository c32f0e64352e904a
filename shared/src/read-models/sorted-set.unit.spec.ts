/**
 * The sorted set against the plainest model of Redis's: a map of scores, sorted by (score, member) on
 * every read. Random writes (few members and scores, so ties and moves are common), then every read.
 */
import fc from 'fast-check';
import { SortedSet } from './sorted-set';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);

type Write =
  | { op: 'add'; member: string; score: number }
  | { op: 'delete'; member: string }
  | { op: 'deleteUpTo'; max: number }
  | { op: 'trim'; keep: number };

const member = fc.constantFrom('a', 'b', 'c', 'd', 'ab', 'A', 'Z9', '0', '');
const score = fc.integer({ min: -3, max: 6 });
const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('add' as const), member, score }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), member }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deleteUpTo' as const), max: score }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('trim' as const), keep: fc.integer({ min: 0, max: 6 }) }),
  },
);

/** The model: Redis's rank order computed from scratch. */
function ranked(model: Map<string, number>): { member: string; score: number }[] {
  return [...model]
    .map(([member, score]) => ({ member, score }))
    .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
}

function applyToModel(model: Map<string, number>, w: Write): void {
  if (w.op === 'add') model.set(w.member, w.score);
  else if (w.op === 'delete') model.delete(w.member);
  else if (w.op === 'deleteUpTo') {
    for (const [m, s] of model) if (s <= w.max) model.delete(m);
  } else
    for (const { member: m } of ranked(model).slice(0, Math.max(0, model.size - w.keep))) model.delete(m);
}

function applyToSet(set: SortedSet, w: Write): void {
  if (w.op === 'add') set.add(w.member, w.score);
  else if (w.op === 'delete') set.delete(w.member);
  else if (w.op === 'deleteUpTo') set.deleteUpTo(w.max);
  else set.trim(w.keep);
}

describe('SortedSet', () => {
  it('answers every range as a sort of its members by (score, member) would, after any writes', () => {
    fc.assert(
      fc.property(
        fc.array(write, { maxLength: 40 }),
        score,
        score,
        fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
        (writes, a, b, limit) => {
          const model = new Map<string, number>();
          const set = new SortedSet();
          for (const w of writes) {
            applyToModel(model, w);
            applyToSet(set, w);
          }
          const all = ranked(model);
          expect(set.size).toBe(model.size);
          expect(set.entries()).toEqual(all.map((m) => [m.member, m.score]));
          const [min, max] = a <= b ? [a, b] : [b, a];
          const within = all.filter((m) => m.score >= min && m.score <= max);
          expect(set.range(min, max, false, limit)).toEqual(within.slice(0, limit));
          expect(set.range(min, max, true, limit)).toEqual([...within].reverse().slice(0, limit));
          expect(set.range(max + 1, min - 1)).toEqual([]);
          expect(set.range(-Infinity, Infinity)).toEqual(all);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('ranges from the lowest member of the lowest score asked, whatever its text', () => {
    const set = new SortedSet();
    for (const m of ['b', 'A', '', '0', 'Zz']) set.add(m, 1);
    set.add('c', 0);
    set.add('d', 2);
    expect(set.range(1, 1).map((m) => m.member)).toEqual(['', '0', 'A', 'Zz', 'b']);
    expect(set.range(1, 2, true, 2).map((m) => m.member)).toEqual(['d', 'b']);
  });

  it('hands out members that cannot be changed (they are shared between reads)', () => {
    const set = new SortedSet();
    set.add('a', 1);
    const [first] = set.range(0, 2);
    expect(() => {
      (first as { score: number }).score = 5;
    }).toThrow(TypeError);
    expect(set.range(0, 2)).toEqual([{ member: 'a', score: 1 }]);
  });
});
