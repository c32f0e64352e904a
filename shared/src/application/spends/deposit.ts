/**
 * Deposit: pays a registry token into an allow-listed lending venue, which mints its receipt tokens
 * to the agent in the same transaction (both land or neither). A spend: every check applies, its
 * value counted in the base token. Answers what was deposited.
 */
import { DepositResponse, type DepositRequest } from '../../contract/agent/intents';
import { amountFields } from '../../contract/schemas';
import { resolveToken } from '../../domain/tokens';
import { ServiceError } from '../../errors';
import { amountFromText, parseAmount, toBaseUnits } from '../../money';
import type { SpendKind } from './kind';
import { buildAtVenue, checkedCpiData, requestedVenue, unlistedProgramAsk } from './lending';
import { valueInBase } from './valuation';

export const depositKind: SpendKind<DepositRequest, 'deposit'> = {
  action: 'deposit',
  answerAmounts: amountFields(DepositResponse),
  // In the group's base token, valued as it is: nothing to quote.
  localAsk: (req) => req.mint === undefined,

  async ask(ctx, req, group) {
    const venue = requestedVenue(ctx, req.lending_program, group);
    if (!venue) return unlistedProgramAsk(ctx, req, group);
    const amount = parseAmount(req.amount);
    const token = resolveToken(ctx.chain.tokens, req.mint, group.baseMint);
    if (!venue.receiptMint(token.mint))
      throw new ServiceError('invalid_mint', `${venue.name} does not take ${token.symbol}.`);
    const cpi_data = checkedCpiData(venue, 'deposit', req.cpi_data, toBaseUnits(amount, token.decimals));
    return {
      amount,
      value: await valueInBase(ctx, token, amount, group.baseMint),
      mint: token.mint,
      decimals: token.decimals,
      counterparty: venue.program,
      params: { ...(cpi_data && { cpi_data }) },
    };
  },

  build: buildAtVenue,

  answer: (intent, confirmed) => ({
    tx_sig: confirmed.tx_sig,
    status: 'confirmed',
    deposited_amount: amountFromText(intent.amount),
  }),
};
