/** Quotes for the spend pipeline: the aggregator's answer, or `aggregator_unavailable` (502) with nothing reserved. */
import type { SpendContext } from './kind';
import {
  AggregatorUnavailable,
  NoRoute,
  type AggregatorQuote,
  type AggregatorQuoteRequest,
} from '../../aggregator/port';
import { ServiceError } from '../../errors';

export async function quoteOrUnavailable(
  ctx: SpendContext,
  request: AggregatorQuoteRequest,
): Promise<AggregatorQuote> {
  if (!ctx.aggregator)
    throw new ServiceError('aggregator_unavailable', 'No swap aggregator is configured on this service.');
  let quote: AggregatorQuote;
  try {
    quote = await ctx.aggregator.quote(request);
  } catch (err) {
    if (err instanceof RangeError) throw new ServiceError('invalid_amount', err.message);
    if (err instanceof NoRoute)
      throw new ServiceError(
        'invalid_mint',
        `The aggregator has no route between these tokens: ${err.message}`,
      );
    if (err instanceof AggregatorUnavailable)
      throw new ServiceError('aggregator_unavailable', `The swap aggregator did not quote: ${err.message}`);
    throw err;
  }
  if (quote.outAmount <= 0n)
    throw new ServiceError('aggregator_unavailable', 'The aggregator quotes nothing for this amount.');
  return quote;
}
