/**
 * The variant's spend operations as spend kinds of the one pipeline: each translates the variant's
 * request into the primary kind's (whose ask and build it reuses, so no rule is written twice) and the
 * confirmed intent into the variant's answer. The executor builds their intents with the primary kinds
 * (it dispatches on the action), so only the ask and the answer differ.
 *
 * Memo: the variant's memo is kept in the log as the agent wrote it; its SHA-256 (hex) is what the
 * transfer's memo instruction carries (`memo_sha256` on the intent).
 */
import Big from 'big.js';
import { createHash } from 'node:crypto';
import {
  amountFields,
  amountFromText,
  depositKind,
  resolveToken,
  swapKind,
  transferKind,
  withdrawKind,
  type GroupState,
  type IntentOf,
  type SpendContext,
  type SpendKind,
  type SwapRequest,
  type TransferRequest,
  type VariantDepositRequest,
  type VariantSwapRequest,
  type VariantTransferRequest,
  type VariantWithdrawRequest,
  VariantDepositResponse,
  VariantSwapResponse,
  VariantTransferResponse,
  VariantWithdrawResponse,
} from '@tokenops/shared';

type Keyed<T> = T & { idempotency_key: string };

export const memoDigest = (memo: string): string => createHash('sha256').update(memo, 'utf8').digest('hex');

/** The variant transfer as the primary's request (the default stablecoin: no mint). */
export const transferRequest = (req: Keyed<VariantTransferRequest>): TransferRequest => ({
  to: req.recipient,
  amount: req.amount,
  idempotency_key: req.idempotency_key,
  ...(req.memo !== undefined && { memo: req.memo }),
  ...(req.task_id !== undefined && { task_id: req.task_id }),
});

/** The variant swap as the primary's request: each side named by its mint (the registry gives the symbol). */
export function swapRequest(ctx: SpendContext, req: Keyed<VariantSwapRequest>): SwapRequest {
  const from = resolveToken(ctx.chain.tokens, req.input_mint, req.input_mint);
  const to = resolveToken(ctx.chain.tokens, req.output_mint, req.output_mint);
  return {
    from_token: from.symbol,
    to_token: to.symbol,
    from_mint: from.mint,
    to_mint: to.mint,
    amount: req.input_amount,
    idempotency_key: req.idempotency_key,
    ...(req.min_output !== undefined && { minimum_amount_out: req.min_output }),
    slippage_bps: req.slippage_bps ?? 50,
    ...(req.task_id !== undefined && { task_id: req.task_id }),
  };
}

const remainingToday = (intent: IntentOf<'transfer'> | IntentOf<'swap'>) =>
  amountFromText(intent.daily_remaining_after ?? '0');
const recipientRemaining = (intent: IntentOf<'transfer'> | IntentOf<'swap'>): Big | null =>
  intent.budget_remaining_after === undefined ? null : amountFromText(intent.budget_remaining_after);

export const variantTransferKind: SpendKind<Keyed<VariantTransferRequest>, 'transfer'> = {
  action: 'transfer',
  answerAmounts: amountFields(VariantTransferResponse),

  async ask(ctx, req, group: GroupState) {
    const ask = await transferKind.ask(ctx, transferRequest(req), group);
    return { ...ask, ...(req.memo !== undefined && { memo_sha256: memoDigest(req.memo) }) };
  },

  build: transferKind.build,

  answer: (intent, confirmed) => ({
    status: 'confirmed',
    tx_signature: confirmed.tx_sig,
    amount_sent: amountFromText(intent.net_amount),
    fee: amountFromText(intent.protocol_fee),
    remaining_today: remainingToday(intent),
    recipient_remaining: recipientRemaining(intent),
  }),
};

export const variantSwapKind: SpendKind<Keyed<VariantSwapRequest>, 'swap'> = {
  action: 'swap',
  answerAmounts: amountFields(VariantSwapResponse),
  ask: (ctx, req, group) => swapKind.ask(ctx, swapRequest(ctx, req), group),
  lockKey: swapKind.lockKey!,
  build: swapKind.build,
  answer: (intent, confirmed) => ({
    status: 'confirmed',
    tx_signature: confirmed.tx_sig,
    amount_sent: amountFromText(intent.amount),
    fee: new Big(0),
    remaining_today: remainingToday(intent),
    recipient_remaining: recipientRemaining(intent),
    output_amount: amountFromText(confirmed.received_amount ?? '0'),
  }),
};

export const variantDepositKind: SpendKind<Keyed<VariantDepositRequest>, 'deposit'> = {
  ...depositKind,
  answerAmounts: amountFields(VariantDepositResponse),
  ask: (ctx, req, group) => depositKind.ask(ctx, req, group),
};

export const variantWithdrawKind: SpendKind<Keyed<VariantWithdrawRequest>, 'withdraw'> = {
  ...withdrawKind,
  answerAmounts: amountFields(VariantWithdrawResponse),
  ask: (ctx, req, group) => withdrawKind.ask(ctx, req, group),
};
