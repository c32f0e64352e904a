/**
 * Withdraw: redeems receipt tokens at an allow-listed lending venue, which pays the underlying at its
 * exchange rate of that moment (more after interest) in the same transaction. `mint` names the
 * position by its underlying (or receipt) token, `amount` the receipt tokens to redeem. Counts toward
 * the hourly cap only. Answers the underlying received.
 */
import { WithdrawResponse, type WithdrawRequest } from '../../contract/agent/intents';
import { amountFields } from '../../contract/schemas';
import { resolveToken } from '../../domain/tokens';
import { ServiceError } from '../../errors';
import { amountFromText, parseAmount, toBaseUnits } from '../../money';
import type { SpendKind } from './kind';
import { buildAtVenue, checkedCpiData, requestedVenue, unlistedProgramAsk } from './lending';
import { tokenOf } from './tokens';
import { valueInBase } from './valuation';

export const withdrawKind: SpendKind<WithdrawRequest, 'withdraw'> = {
  action: 'withdraw',
  answerAmounts: amountFields(WithdrawResponse),
  // A position in the group's base token: its receipt tokens valued as that much of it, nothing to quote.
  localAsk: (req) => req.mint === undefined,

  async ask(ctx, req, group) {
    const venue = requestedVenue(ctx, req.lending_program, group);
    if (!venue) return unlistedProgramAsk(ctx, req, group);
    const amount = parseAmount(req.amount);
    const named = resolveToken(ctx.chain.tokens, req.mint, group.baseMint);
    const underlying = venue.underlyingOf(named.mint);
    const receipt = underlying && venue.receiptMint(underlying);
    if (!underlying || !receipt)
      throw new ServiceError('invalid_mint', `${venue.name} holds no position in ${named.symbol}.`);
    const receiptToken = tokenOf(ctx, receipt);
    const cpi_data = checkedCpiData(
      venue,
      'withdraw',
      req.cpi_data,
      toBaseUnits(amount, receiptToken.decimals),
    );
    return {
      amount,
      // Redeemed at a rate of at least 1: valued as that much of the underlying (not counted by the daily limit).
      value: await valueInBase(ctx, tokenOf(ctx, underlying), amount, group.baseMint),
      mint: receipt,
      decimals: receiptToken.decimals,
      counterparty: venue.program,
      params: { ...(cpi_data && { cpi_data }) },
    };
  },

  build: buildAtVenue,

  answer: (_intent, confirmed) => ({
    tx_sig: confirmed.tx_sig,
    status: 'confirmed',
    received_amount: amountFromText(confirmed.received_amount ?? '0'),
  }),
};
