/**
 * Swap pricing under the minimum-output guarantee. The quote comes from the aggregator (an adapter);
 * what the service accepts from it is decided here.
 */
import Big from 'big.js';
import { ServiceError } from '../errors';
import { AMOUNT_SCALE } from '../money';

export interface Quote {
  in_amount: Big;
  out_amount: Big;
}

export interface SwapTerms {
  /** The least the agent accepts to receive; the chain transaction fails below it. */
  minimum_amount_out: Big;
  /** The quoted output per unit of input. */
  quoted_rate: Big;
}

/**
 * Fixes the minimum output: the caller's `minimum_amount_out`, or else the quoted output less
 * `slippage_bps` (rounded down to the output token's precision, so the guarantee never rounds up).
 * No quote means `aggregator_unavailable`; a caller minimum above the quote would fail on chain, so
 * it is refused before anything is spent.
 */
export function swapTerms(
  quote: Quote | undefined,
  request: { minimum_amount_out?: Big; slippage_bps: number; out_decimals: number },
): SwapTerms {
  if (!quote || quote.out_amount.lte(0)) throw new ServiceError('aggregator_unavailable');
  const scale = Math.min(request.out_decimals, AMOUNT_SCALE);
  const slipped = quote.out_amount
    .times(10_000 - request.slippage_bps)
    .div(10_000)
    .round(scale, Big.roundDown);
  const minimum = request.minimum_amount_out ?? slipped;
  if (minimum.gt(quote.out_amount)) {
    throw new ServiceError(
      'validation_error',
      'The minimum_amount_out is above what the aggregator quotes; lower it or retry later.',
      [{ path: '/minimum_amount_out', issue: `must be at most the quoted ${quote.out_amount.toFixed()}` }],
    );
  }
  return { minimum_amount_out: minimum, quoted_rate: quote.out_amount.div(quote.in_amount) };
}

/** The effective rate of an executed swap: received / paid, at 6 decimals (rounded down). */
export const effectiveRate = (paid: Big, received: Big): Big =>
  paid.gt(0) ? received.div(paid).round(AMOUNT_SCALE, Big.roundDown) : new Big(0);
