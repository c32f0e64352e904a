import fc from 'fast-check';
import { Sorted } from './sorted';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);
const itself = (n: number) => n;
const seq = (s: Sorted<number>) => [...s];

describe('a sorted run', () => {
  it('keeps every version as it was when others grow from it, in time order, ties in arrival order', () => {
    const base = Sorted.empty<number>(itself).with(1).with(3);
    const a = base.with(5);
    const b = base.with(4); // grows from a version that no longer ends the buffer
    const c = base.with(2); // out of order
    expect([seq(base), seq(a), seq(b), seq(c)]).toEqual([
      [1, 3],
      [1, 3, 5],
      [1, 3, 4],
      [1, 2, 3],
    ]);
    const items = Sorted.empty<{ at: number; id: string }>((i) => i.at)
      .with({ at: 2, id: 'x' })
      .with({ at: 1, id: 'y' })
      .with({ at: 2, id: 'z' });
    expect([...items].map((i) => i.id)).toEqual(['y', 'x', 'z']);
  });

  it('answers how many are at or before a time, drops those, and replaces one in place', () => {
    const s = [5, 1, 3, 3, 9].reduce((r, n) => r.with(n), Sorted.empty<number>(itself));
    expect([s.atOrBefore(0), s.atOrBefore(3), s.atOrBefore(9), s.length]).toEqual([0, 3, 5, 5]);
    expect(seq(s.after(3))).toEqual([5, 9]);
    expect(s.after(0)).toBe(s);
    expect(seq(s.replaced(1, 2))).toEqual([1, 2, 3, 5, 9]);
    expect(seq(s)).toEqual([1, 3, 3, 5, 9]);
    expect([s.get(4), s.findIndex((n) => n > 3), s.findIndex((n) => n > 9)]).toEqual([9, 3, -1]);
  });

  it('is what sorting the items gives, for any branching history of appends', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(10), fc.integer({ min: 0, max: 50 })), { maxLength: 60 }),
        (steps) => {
          const versions: { run: Sorted<number>; items: number[] }[] = [
            { run: Sorted.empty(itself), items: [] },
          ];
          for (const [from, at] of steps) {
            const v = versions[from % versions.length]!;
            versions.push({ run: v.run.with(at), items: [...v.items, at] });
          }
          for (const v of versions) expect(seq(v.run)).toEqual([...v.items].sort((x, y) => x - y));
        },
      ),
      { numRuns: RUNS },
    );
  });
});
