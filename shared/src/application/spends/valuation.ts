/**
 * Limits and budgets are in the group's base token. A spend in another token is valued in it at the
 * aggregator's quote at decision time (the quote of selling the amount for the base token); a lending
 * venue's receipt token is valued as the underlying it redeems for now (the venue's exchange rate),
 * then that underlying likewise. The value is recorded in the intent's event, so a replay never
 * re-prices.
 */
import type Big from 'big.js';
import type { GroupState } from '../../domain/group';
import { underlyingForReceipt } from '../../domain/venue';
import { resolveToken, tokenByMint, type Token } from '../../domain/tokens';
import { ServiceError } from '../../errors';
import { fromBaseUnits, parseAmount, toBaseUnits } from '../../money';
import type { Ask, SpendContext } from './kind';
import { quoteOrUnavailable } from './quotes';

export async function valueInBase(
  ctx: SpendContext,
  token: Token,
  amount: Big,
  baseMint: string,
): Promise<Big> {
  if (token.mint === baseMint) return amount;
  const venue = ctx.venues.find((v) => v.underlyingOf(token.mint) && !v.receiptMint(token.mint));
  const underlying = venue && tokenByMint(ctx.chain.tokens, venue.underlyingOf(token.mint)!);
  if (venue && underlying) {
    const units = underlyingForReceipt(
      toBaseUnits(amount, token.decimals),
      await venue.exchangeRate(underlying.mint),
    );
    return valueInBase(ctx, underlying, fromBaseUnits(units, underlying.decimals), baseMint);
  }
  const base = tokenByMint(ctx.chain.tokens, baseMint);
  if (!base)
    throw new ServiceError('token_not_in_registry', "The group's base token is not in the registry.");
  const quote = await quoteOrUnavailable(ctx, {
    inputMint: token.mint,
    outputMint: base.mint,
    amount: toBaseUnits(amount, token.decimals),
    slippageBps: 0,
  });
  return fromBaseUnits(quote.outAmount, base.decimals);
}

/**
 * What spending `amount` of a registry token (the group's base token unless `mint` names another)
 * asks of the decision: the amount, its value in the base token, the mint and its decimals.
 */
export async function tokenAsk(
  ctx: SpendContext,
  req: { amount: unknown; mint?: string },
  group: GroupState,
): Promise<Pick<Ask, 'amount' | 'value' | 'mint' | 'decimals'>> {
  const amount = parseAmount(req.amount);
  const token = resolveToken(ctx.chain.tokens, req.mint, group.baseMint);
  return {
    amount,
    value: await valueInBase(ctx, token, amount, group.baseMint),
    mint: token.mint,
    decimals: token.decimals,
  };
}
