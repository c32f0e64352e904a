import fc from 'fast-check';
import {
  answered,
  failed,
  freshNode,
  probeDue,
  readOrder,
  sendTargets,
  statuses,
  type HealthRules,
  type NodeState,
} from './node-health';

const RULES: HealthRules = { maxSlotLag: 50, backoffMs: 1_000, maxBackoffMs: 8_000 };
const at = (slot: number, errors = 0): NodeState => ({ failures: 0, errors, slot });

describe('a node that fails', () => {
  it('is set aside for a backoff that doubles with each failure in a row, up to the cap', () => {
    let s = freshNode();
    const asides: number[] = [];
    for (let i = 0; i < 6; i++) {
      s = failed(s, 0, RULES, 'timed out');
      asides.push(s.asideUntil!);
    }
    expect(asides).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    expect(s.errors).toBe(6);
  });

  it('is tried again once its backoff passed, and one answer brings it back with its errors counted', () => {
    const down = failed(at(100), 0, RULES, 'connection refused');
    expect(statuses([at(100), down], 999, RULES)).toEqual([
      { healthy: true },
      { healthy: false, why: 'failing', reason: 'connection refused', retryAt: 1_000 },
    ]);
    expect(probeDue([at(100), down], 999)).toEqual([0]);
    expect(probeDue([at(100), down], 1_000)).toEqual([0, 1]);
    const back = answered(down, 101);
    expect(back).toEqual({ failures: 0, errors: 1, slot: 101 });
    expect(statuses([at(100), back], 1_000, RULES)).toEqual([{ healthy: true }, { healthy: true }]);
    // A failure after coming back starts the backoff again from the first step.
    expect(failed(back, 5_000, RULES, 'x').asideUntil).toBe(6_000);
  });
});

describe('a node that lags', () => {
  it.each([
    [
      [1000, 950],
      [true, true],
    ],
    [
      [1000, 949],
      [true, false],
    ],
    [
      [949, 1000, 999],
      [false, true, true],
    ],
    [[10], [true]],
  ])('slots %j: healthy %j (more than 50 behind the highest is set aside)', (slots, healthy) => {
    const got = statuses(
      slots.map((s) => at(s)),
      0,
      RULES,
    );
    expect(got.map((s) => s.healthy)).toEqual(healthy);
  });

  it('is measured against nodes that answer only: a failing node with a high slot does not set others aside', () => {
    const failing = failed(at(5_000), 0, RULES, 'timed out');
    expect(statuses([failing, at(1_000)], 10, RULES)).toEqual([
      expect.objectContaining({ why: 'failing' }),
      { healthy: true },
    ]);
  });

  it('says how far behind it is', () => {
    expect(statuses([at(1_000), at(900)], 0, RULES)[1]).toEqual({
      healthy: false,
      why: 'lagging',
      behind: 100,
    });
  });
});

describe('where calls go', () => {
  it('reads from the highest slot, then the fewest errors, then the first listed', () => {
    expect(readOrder([at(10), at(12), at(11)], 0, RULES)).toEqual([1, 2, 0]);
    expect(readOrder([at(10, 3), at(10, 1), at(10, 1)], 0, RULES)).toEqual([1, 2, 0]);
    expect(readOrder([freshNode(), freshNode()], 0, RULES)).toEqual([0, 1]);
  });

  it('sends to every healthy node, and to every node when none is healthy', () => {
    const down = failed(at(10), 0, RULES, 'refused');
    expect(sendTargets([at(10), down, at(10)], 0, RULES)).toEqual([0, 2]);
    expect(sendTargets([down, down], 0, RULES)).toEqual([0, 1]);
    expect(readOrder([down, down], 0, RULES)).toEqual([0, 1]);
  });

  it('never reads from nor sends to a node set aside while another is healthy', () => {
    const node = fc.record({
      slot: fc.option(fc.nat(10_000), { nil: undefined }),
      errors: fc.nat(5),
      failures: fc.nat(3),
      asideFor: fc.integer({ min: -2_000, max: 2_000 }),
    });
    fc.assert(
      fc.property(fc.array(node, { minLength: 1, maxLength: 5 }), (nodes) => {
        const states: NodeState[] = nodes.map((n) => ({
          failures: n.failures,
          errors: n.errors + n.failures,
          ...(n.slot !== undefined && { slot: n.slot }),
          ...(n.failures > 0 && { asideUntil: n.asideFor, reason: 'x' }),
        }));
        const status = statuses(states, 0, RULES);
        const healthy = status.flatMap((s, i) => (s.healthy ? [i] : []));
        const order = readOrder(states, 0, RULES);
        const targets = sendTargets(states, 0, RULES);
        if (healthy.length === 0) {
          expect(targets).toEqual(states.map((_, i) => i));
        } else {
          expect(targets).toEqual(healthy);
          expect([...order].sort()).toEqual([...healthy].sort());
          // The first read goes to a node with the highest slot among the healthy.
          const top = Math.max(...healthy.map((i) => states[i]!.slot ?? -1));
          expect(states[order[0]!]!.slot ?? -1).toBe(top);
        }
      }),
    );
  });
});
