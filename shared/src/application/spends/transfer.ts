/**
 * Transfer: pays an allow-listed recipient, less the 0.10 % protocol fee, which goes to the treasury
 * in the same transaction (both land or neither). Any registry token; limits count its value in the
 * group's base token. The fee is taken in the token sent.
 */
import { transferWithFeeInstructions } from '../../chain/transactions';
import { TransferResponse, type SimulateRequest, type TransferRequest } from '../../contract/agent/intents';
import { amountFields } from '../../contract/schemas';
import type { GroupState } from '../../domain/group';
import { checkRecipient } from '../../domain/tokens';
import { amountFromText, toBaseUnits } from '../../money';
import type { SpendKind, SpendContext } from './kind';
import type { DryRunAsk } from './pipeline';
import { tokenOf } from './tokens';
import { tokenAsk } from './valuation';

export const transferKind: SpendKind<TransferRequest, 'transfer'> = {
  action: 'transfer',
  answerAmounts: amountFields(TransferResponse),
  // In the group's base token, valued as it is: nothing to quote.
  localAsk: (req) => req.mint === undefined,

  async ask(ctx, req, group) {
    checkRecipient(req.to);
    return {
      ...(await transferDryRun(
        ctx,
        { amount: req.amount, to: req.to, ...(req.mint && { mint: req.mint }) },
        group,
      )),
      counterparty: req.to,
      ...(req.memo !== undefined && { memo: req.memo }),
      ...(req.task_id !== undefined && { task_id: req.task_id }),
    };
  },

  async build(ctx, intent, agent) {
    const token = tokenOf(ctx, intent.mint);
    return {
      instructions: await transferWithFeeInstructions(
        {
          from: agent,
          to: intent.counterparty,
          mint: intent.mint,
          decimals: token.decimals,
          net: toBaseUnits(amountFromText(intent.net_amount), token.decimals),
          fee: toBaseUnits(amountFromText(intent.protocol_fee), token.decimals),
          treasury: ctx.chain.treasury,
          reference: `intent:${intent.intent_id}`,
          ...(intent.memo_sha256 !== undefined && { memo: intent.memo_sha256 }),
        },
        ctx.chain,
      ),
      signers: [],
    };
  },

  answer: (intent, confirmed) => ({
    tx_sig: confirmed.tx_sig,
    status: 'confirmed',
    net_amount: amountFromText(intent.net_amount),
    protocol_fee: amountFromText(intent.protocol_fee),
    daily_remaining: amountFromText(intent.daily_remaining_after ?? '0'),
    hourly_tx_remaining: intent.hourly_tx_remaining_after ?? 0,
  }),
};

/** What a dry run of a transfer asks (`simulate`): the same as a transfer, the recipient optional. */
export async function transferDryRun(
  ctx: SpendContext,
  req: SimulateRequest,
  group: GroupState,
): Promise<DryRunAsk> {
  if (req.to !== undefined) checkRecipient(req.to);
  return { ...(await tokenAsk(ctx, req, group)), ...(req.to !== undefined && { counterparty: req.to }) };
}
