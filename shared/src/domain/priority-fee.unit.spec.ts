/**
 * The priority-fee rules as an operator reads them: the setting parsed, the price `auto` offers from
 * the recent fees (a percentile, capped), the limit from a simulation with its margin, and the fee
 * that follows. Tables for the cases a reader checks by hand; properties for all recent fees.
 */
import fc from 'fast-check';
import {
  MAX_COMPUTE_UNITS,
  choosePriorityFee,
  computeUnitLimit,
  parsePriorityFee,
  percentileOf,
  transactionFee,
  type PriorityFeePolicy,
} from './priority-fee';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
const auto = (percentile = 75, max = 1_000_000n): PriorityFeePolicy => ({
  setting: { kind: 'auto' },
  percentile,
  maxMicroLamports: max,
});

describe('PRIORITY_FEE', () => {
  it.each([
    ['auto', { kind: 'auto' }],
    ['AUTO', { kind: 'auto' }],
    ['off', { kind: 'off' }],
    ['0', { kind: 'fixed', microLamports: 0n }],
    ['25000', { kind: 'fixed', microLamports: 25_000n }],
    // As an env file or a shell may leave it.
    [' auto ', { kind: 'auto' }],
    ['25000\n', { kind: 'fixed', microLamports: 25_000n }],
  ])('reads %j', (text, setting) => {
    expect(parsePriorityFee(text)).toEqual(setting);
  });

  it.each(['', 'fast', '-1', '1.5', '1e6', '99999999999999999999'])('refuses %j', (text) => {
    expect(() => parsePriorityFee(text)).toThrow(/PRIORITY_FEE must be auto, off or a whole number/);
  });
});

describe('the price', () => {
  it.each([
    [[], 75, 0n],
    [[0n, 0n, 0n], 75, 0n],
    [[10n, 20n, 30n, 40n], 75, 30n],
    [[40n, 10n, 30n, 20n], 75, 30n],
    [[10n, 20n, 30n, 40n], 100, 40n],
    [[10n, 20n, 30n, 40n], 0, 10n],
    [[10n, 20n, 30n, 40n], 50, 20n],
    [[5n], 90, 5n],
  ])('the percentile of %s at %d is %d', (fees, percentile, expected) => {
    expect(percentileOf(fees, percentile)).toBe(expected);
    expect(choosePriorityFee(auto(percentile), fees)).toBe(expected);
  });

  it('auto offers no more than the cap', () => {
    expect(choosePriorityFee(auto(75, 50_000n), [1n, 2_000_000n, 3_000_000n, 4_000_000n])).toBe(50_000n);
  });

  it('a fixed price is the price whatever the chain reports; off sets none', () => {
    const fixed = { ...auto(), setting: { kind: 'fixed', microLamports: 7n } } as const;
    expect(choosePriorityFee(fixed, [1_000n, 2_000n])).toBe(7n);
    expect(choosePriorityFee({ ...auto(), setting: { kind: 'off' } }, [1_000n])).toBeUndefined();
  });

  it('auto is one of the recent fees, or the cap, and never above the cap', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { maxLength: 150 }),
        fc.integer({ min: 0, max: 100 }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        (fees, percentile, max) => {
          const price = choosePriorityFee(auto(percentile, max), fees)!;
          expect(price <= max).toBe(true);
          if (fees.length === 0) expect(price).toBe(0n);
          else if (price < max) expect(fees).toContain(price);
          // At least `percentile` % of the recent fees are at or below what it offers (uncapped).
          const wanted = percentileOf(fees, percentile);
          const below = fees.filter((f) => f <= wanted).length;
          expect(below * 100 >= percentile * fees.length).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a higher percentile never offers less', () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 9n }), { minLength: 1, maxLength: 150 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (fees, a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          expect(percentileOf(fees, low) <= percentileOf(fees, high)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('the compute-unit limit', () => {
  it.each([
    [10_000n, 20, 3, 12_000],
    [10_001n, 20, 3, 12_002],
    [33_333n, 0, 3, 33_333],
    [1_300_000n, 20, 3, MAX_COMPUTE_UNITS],
    [undefined, 20, 3, 600_000],
    [undefined, 20, 9, MAX_COMPUTE_UNITS],
    [0n, 20, 2, 400_000],
  ])('consumed %s with %d %% over %d instructions asks %d', (consumed, margin, instructions, limit) => {
    expect(computeUnitLimit(consumed, margin, instructions)).toBe(limit);
  });

  it('always covers what the simulation consumed, up to the maximum', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 2_000_000n }),
        fc.integer({ min: 0, max: 100 }),
        (consumed, margin) => {
          const limit = computeUnitLimit(consumed, margin, 4);
          expect(limit).toBeLessThanOrEqual(MAX_COMPUTE_UNITS);
          if (consumed <= BigInt(MAX_COMPUTE_UNITS)) expect(BigInt(limit) >= consumed).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('the fee', () => {
  it.each([
    [1, 0, 0n, 5_000n],
    [2, 200_000, 0n, 10_000n],
    [1, 12_000, 1_000_000n, 17_000n],
    [1, 12_000, 1n, 5_001n],
    [2, 30_000, 25_000n, 10_750n],
  ])('%d signatures, %d units at %d micro-lamports pay %d lamports', (sigs, units, price, fee) => {
    expect(transactionFee(sigs, units, price)).toBe(fee);
  });
});
