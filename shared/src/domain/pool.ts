/**
 * Constant-product pool math (the local aggregator's pools), in bigint base units, pure.
 *
 * A swap of `amountIn` into a pool holding `reserveIn` and `reserveOut` pays out
 *
 *     amountOut = floor( amountIn·(10⁴ − feeBps)·reserveOut / (reserveIn·10⁴ + amountIn·(10⁴ − feeBps)) )
 *
 * The fee is taken from the input (only `amountIn·(10⁴ − feeBps)/10⁴` of it is priced) and stays in
 * the pool; the output is rounded down. So the pool never pays a base unit more than the exact
 * rational output, the product of the reserves never decreases (it grows by the fee and the rounding),
 * and the output is always below the output reserve.
 */
import Big from 'big.js';

/** The local pools' fee: 0.30 % of the input, kept by the pool. */
export const POOL_FEE_BPS = 30;

const BPS = 10_000n;

export interface PoolSwap {
  /** Base units of the output token paid to the trader (rounded down). */
  amountOut: bigint;
  /** Base units of the input kept as the pool fee (`ceil(amountIn·feeBps/10⁴)`), for display. */
  fee: bigint;
  /**
   * How much worse than the pool's spot price this swap trades, fees aside, as a fraction in decimal
   * text (`"0.01"` is 1 %): `x / (reserveIn + x)` with `x` the input after the fee. Rounded up at
   * 12 decimals, so it never reads smaller than it is.
   */
  priceImpact: string;
}

/** The output of swapping `amountIn` into a pool with these reserves; see the module's comment. */
export function swapOut(
  reserveIn: bigint,
  reserveOut: bigint,
  amountIn: bigint,
  feeBps: number = POOL_FEE_BPS,
): PoolSwap {
  if (reserveIn <= 0n || reserveOut <= 0n) throw new RangeError('the pool has no reserves');
  if (amountIn <= 0n) throw new RangeError('a swap needs a positive input amount');
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps >= 10_000)
    throw new RangeError('the pool fee is a whole number of basis points below 10,000');
  const inWithFee = amountIn * (BPS - BigInt(feeBps));
  const denominator = reserveIn * BPS + inWithFee;
  const amountOut = (inWithFee * reserveOut) / denominator; // bigint division rounds down
  const fee = (amountIn * BigInt(feeBps) + BPS - 1n) / BPS;
  const priceImpact = new Big(inWithFee.toString())
    .div(denominator.toString())
    .round(12, Big.roundUp)
    .toFixed();
  return { amountOut, fee, priceImpact };
}

/**
 * The least output a quote accepts at `slippageBps`: `out − floor(out·bps/10⁴)` (Jupiter's
 * `otherAmountThreshold` for an exact-in swap).
 */
export function slippageThreshold(out: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000)
    throw new RangeError('slippage is a whole number of basis points from 0 to 10,000');
  return out - (out * BigInt(slippageBps)) / BPS;
}
