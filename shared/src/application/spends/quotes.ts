/** Quotes for the spend pipeline: the aggregator's answer, or `aggregator_unavailable` (502) with nothing reserved. */
import { ServiceError } from '../../errors';
import type { Context } from '../context';

export interface QuoteRequest {
  inputMint: string;
  outputMint: string;
  /** Base units of the input. */
  amount: bigint;
  slippageBps: number;
}

export interface QuoteAnswer {
  inAmount: bigint;
  outAmount: bigint;
  /** The least output after slippage (Jupiter's otherAmountThreshold). */
  otherAmountThreshold: bigint;
}

export async function quoteOrUnavailable(ctx: Context, request: QuoteRequest): Promise<QuoteAnswer> {
  if (!ctx.aggregator)
    throw new ServiceError('aggregator_unavailable', 'No swap aggregator is configured on this service.');
  try {
    const quote = await ctx.aggregator.quote(request);
    if (quote.outAmount <= 0n)
      throw new ServiceError('aggregator_unavailable', 'The aggregator quotes nothing for this amount.');
    return quote;
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new ServiceError(
      'aggregator_unavailable',
      `The swap aggregator did not quote: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
