/**
 * The constant-product pool math: worked examples at the local pools' reserves, and properties over
 * any u64 reserves and amounts (PROPERTY_RUNS runs each, 1000 by default).
 */
import Big from 'big.js';
import fc from 'fast-check';
import { POOL_FEE_BPS, slippageThreshold, swapOut } from './pool';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);
const U64 = 2n ** 64n - 1n;
const reserve = fc.bigInt({ min: 1n, max: U64 });
const amount = fc.bigInt({ min: 1n, max: U64 });
const feeBps = fc.oneof(fc.constant(POOL_FEE_BPS), fc.integer({ min: 0, max: 9_999 }));

// The local USDC/SOL pool as seeded: 1,000,000 USDC (6 decimals) against 10,000 SOL (9 decimals).
const USDC_RESERVE = 1_000_000_000_000n;
const SOL_RESERVE = 10_000_000_000_000n;

describe('a constant-product swap with a 0.30 % fee taken from the input', () => {
  it('pays 0.00996999 SOL for 1 USDC at 100 USDC a SOL: 0.30 % fee, a millionth of price impact', () => {
    const swap = swapOut(USDC_RESERVE, SOL_RESERVE, 1_000_000n);
    expect(swap.amountOut).toBe(9_969_990n);
    expect(swap.fee).toBe(3_000n);
    expect(swap.priceImpact).toBe('0.000000997');
  });

  it('pays 99.690060 USDC for 1 SOL the other way', () => {
    expect(swapOut(SOL_RESERVE, USDC_RESERVE, 1_000_000_000n).amountOut).toBe(99_690_060n);
  });

  it('rounds the output down and the fee up', () => {
    // 10·9970·10 / (100·10⁴ + 10·9970) = 0.9066…: the trader gets 0, the pool keeps the 10 units.
    expect(swapOut(100n, 10n, 10n)).toEqual(expect.objectContaining({ amountOut: 0n, fee: 1n }));
  });

  it('refuses an empty pool and a non-positive amount', () => {
    expect(() => swapOut(0n, 10n, 1n)).toThrow(RangeError);
    expect(() => swapOut(10n, 0n, 1n)).toThrow(RangeError);
    expect(() => swapOut(10n, 10n, 0n)).toThrow(RangeError);
    expect(() => swapOut(10n, 10n, 1n, 10_000)).toThrow(RangeError);
  });

  it('the slippage threshold is the output less floor(output·bps/10⁴)', () => {
    expect(slippageThreshold(9_969_990n, 50)).toBe(9_920_141n); // 9_969_990 − floor(49_849.95)
    expect(slippageThreshold(199n, 50)).toBe(199n); // floor(0.995) = 0: nothing taken
    expect(slippageThreshold(1_000n, 0)).toBe(1_000n);
    expect(slippageThreshold(1_000n, 10_000)).toBe(0n);
    expect(() => slippageThreshold(1_000n, 10_001)).toThrow(RangeError);
  });
});

describe('pool math properties', () => {
  it('the product of the reserves never decreases', () => {
    fc.assert(
      fc.property(reserve, reserve, amount, feeBps, (rIn, rOut, a, fee) => {
        const { amountOut } = swapOut(rIn, rOut, a, fee);
        expect((rIn + a) * (rOut - amountOut) >= rIn * rOut).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('the output is below the output reserve', () => {
    fc.assert(
      fc.property(reserve, reserve, amount, feeBps, (rIn, rOut, a, fee) => {
        const { amountOut } = swapOut(rIn, rOut, a, fee);
        expect(amountOut >= 0n && amountOut < rOut).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("rounding is always in the pool's favour: the output is the exact one rounded down", () => {
    fc.assert(
      fc.property(reserve, reserve, amount, feeBps, (rIn, rOut, a, fee) => {
        const { amountOut } = swapOut(rIn, rOut, a, fee);
        const inWithFee = a * BigInt(10_000 - fee);
        const exactNumerator = inWithFee * rOut;
        const denominator = rIn * 10_000n + inWithFee;
        expect(amountOut * denominator <= exactNumerator).toBe(true); // never more than exact
        expect((amountOut + 1n) * denominator > exactNumerator).toBe(true); // and less by under 1 unit
      }),
      { numRuns: RUNS },
    );
  });

  it('a round trip never gives back more than was put in', () => {
    fc.assert(
      fc.property(reserve, reserve, amount, feeBps, (rIn, rOut, a, fee) => {
        const { amountOut } = swapOut(rIn, rOut, a, fee);
        fc.pre(amountOut > 0n);
        const back = swapOut(rOut - amountOut, rIn + a, amountOut, fee).amountOut;
        expect(back <= a).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('more input never buys less output, and the price impact grows with it', () => {
    fc.assert(
      fc.property(reserve, reserve, amount, amount, (rIn, rOut, a, b) => {
        const [small, large] = a <= b ? [a, b] : [b, a];
        const s = swapOut(rIn, rOut, small);
        const l = swapOut(rIn, rOut, large);
        expect(s.amountOut <= l.amountOut).toBe(true);
        expect(new Big(s.priceImpact).lte(l.priceImpact)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('the price impact is a fraction from 0 to 1 that never reads below the exact one', () => {
    fc.assert(
      fc.property(reserve, reserve, amount, (rIn, rOut, a) => {
        const { priceImpact } = swapOut(rIn, rOut, a);
        const impact = new Big(priceImpact);
        expect(impact.gte(0) && impact.lte(1)).toBe(true);
        const inWithFee = a * BigInt(10_000 - POOL_FEE_BPS);
        // impact ≥ inWithFee / (rIn·10⁴ + inWithFee), compared without division
        expect(impact.times((rIn * 10_000n + inWithFee).toString()).gte(inWithFee.toString())).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('over any sequence of swaps both ways, the product only grows and no reserve empties', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1_000n, max: 10n ** 15n }),
        fc.bigInt({ min: 1_000n, max: 10n ** 15n }),
        fc.array(fc.tuple(fc.boolean(), fc.bigInt({ min: 1n, max: 10n ** 16n })), { maxLength: 30 }),
        (a0, b0, swaps) => {
          let [a, b] = [a0, b0];
          for (const [aToB, amountIn] of swaps) {
            const before = a * b;
            if (aToB) {
              const out = swapOut(a, b, amountIn).amountOut;
              [a, b] = [a + amountIn, b - out];
            } else {
              const out = swapOut(b, a, amountIn).amountOut;
              [a, b] = [a - out, b + amountIn];
            }
            expect(a > 0n && b > 0n).toBe(true);
            expect(a * b >= before).toBe(true);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the slippage threshold lies between out·(1 − bps) and out', () => {
    fc.assert(
      fc.property(amount, fc.integer({ min: 0, max: 10_000 }), (out, bps) => {
        const t = slippageThreshold(out, bps);
        expect(t <= out).toBe(true);
        expect(t * 10_000n >= out * BigInt(10_000 - bps)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
