/**
 * Swap: sells `amount` of one registry token for another through the aggregator (an allow-listed
 * protocol entry of every group), never below the minimum output: the request's
 * `minimum_amount_out`, or by default the quote's output less `slippage_bps` (rounded down to the
 * contract's 6 decimals). The executor quotes again from the live state before it signs; below the
 * minimum nothing is submitted and the intent fails with `aggregator_unavailable`, releasing what it
 * counted. A spend: every check applies, its value being the input valued in the base token.
 */
import { AggregatorUnavailable, BelowMinimum } from '../../aggregator/port';
import { SwapResponse, type SwapRequest } from '../../contract/agent/intents';
import { amountFields } from '../../contract/schemas';
import { effectiveRate, swapTerms } from '../../domain/swap';
import { resolveSwapSide } from '../../domain/tokens';
import { ServiceError, validationError } from '../../errors';
import { amountFromText, amountText, fromBaseUnits, parseAmount, toBaseUnits } from '../../money';
import { BuildRefused, type SpendKind, type SpendContext } from './kind';
import { quoteOrUnavailable } from './quotes';
import { tokenOf } from './tokens';
import { valueInBase } from './valuation';

export const swapKind: SpendKind<SwapRequest, 'swap'> = {
  action: 'swap',
  answerAmounts: amountFields(SwapResponse),

  async ask(ctx, req, group) {
    const from = resolveSwapSide(ctx.chain.tokens, req.from_token, req.from_mint, 'from');
    const to = resolveSwapSide(ctx.chain.tokens, req.to_token, req.to_mint, 'to');
    if (from.mint === to.mint)
      throw validationError([{ path: '/to_mint', issue: 'must differ from from_mint' }]);
    const amount = parseAmount(req.amount);
    const minimum =
      req.minimum_amount_out === undefined
        ? undefined
        : parseAmount(req.minimum_amount_out, 'minimum_amount_out');
    const slippage_bps = req.slippage_bps ?? 50;
    const quote = await quoteOrUnavailable(ctx, {
      inputMint: from.mint,
      outputMint: to.mint,
      amount: toBaseUnits(amount, from.decimals),
      slippageBps: slippage_bps,
    });
    const quoted = fromBaseUnits(quote.outAmount, to.decimals);
    const terms = swapTerms(
      { in_amount: amount, out_amount: quoted },
      {
        ...(minimum !== undefined && { minimum_amount_out: minimum }),
        slippage_bps,
        out_decimals: to.decimals,
      },
    );
    return {
      amount,
      value: await valueInBase(ctx, from, amount, group.baseMint),
      mint: from.mint,
      decimals: from.decimals,
      counterparty: aggregatorOf(ctx).address,
      ...(req.task_id !== undefined && { task_id: req.task_id }),
      params: {
        to_mint: to.mint,
        minimum_amount_out: amountText(terms.minimum_amount_out),
        slippage_bps,
        quoted_amount_out: amountText(quoted),
      },
    };
  },

  // The local pools fix their output in the transaction: swaps of one pair are built and landed in turn.
  lockKey: (intent) => `swap:${[intent.mint, intent.params.to_mint].sort().join('/')}`,

  async build(ctx, intent, agent) {
    const from = tokenOf(ctx, intent.mint);
    const to = tokenOf(ctx, intent.params.to_mint);
    try {
      const prepared = await aggregatorOf(ctx).swap(
        {
          agent: agent.address,
          inputMint: from.mint,
          outputMint: to.mint,
          amount: toBaseUnits(amountFromText(intent.amount), from.decimals),
          minimumOut: toBaseUnits(amountFromText(intent.params.minimum_amount_out), to.decimals),
          slippageBps: intent.params.slippage_bps,
          reference: `intent:${intent.intent_id}`,
        },
        ctx.chain,
      );
      return {
        instructions: prepared.instructions,
        signers: prepared.signers,
        receives: { mint: to.mint, amount: prepared.quote.outAmount },
      };
    } catch (err) {
      if (err instanceof BelowMinimum)
        throw new BuildRefused(
          'aggregator_unavailable',
          `The price moved: the swap would now pay ${fromBaseUnits(err.live, to.decimals).toFixed()}, below the minimum ${intent.params.minimum_amount_out}; nothing was spent.`,
        );
      if (err instanceof AggregatorUnavailable)
        throw new BuildRefused(
          'aggregator_unavailable',
          `The swap aggregator did not build the swap: ${err.message}`,
        );
      throw err;
    }
  },

  answer: (intent, confirmed) => {
    const received = amountFromText(confirmed.received_amount ?? '0');
    return {
      tx_sig: confirmed.tx_sig,
      status: 'confirmed',
      received_amount: received,
      rate: effectiveRate(amountFromText(intent.amount), received),
      daily_remaining: amountFromText(intent.daily_remaining_after ?? '0'),
      hourly_tx_remaining: intent.hourly_tx_remaining_after ?? 0,
    };
  },
};

function aggregatorOf(ctx: SpendContext) {
  if (!ctx.aggregator)
    throw new ServiceError('aggregator_unavailable', 'No swap aggregator is configured on this service.');
  return ctx.aggregator;
}
