/**
 * x402: pays an HTTP resource that answers `402 Payment Required`, as a transfer to its `payTo`
 * under every rule a transfer is held to (allow-list, TTL, budget, per-tx, daily, hourly, approvals).
 *
 * ask   requests the URL (through the SSRF guard), reads the 402's requirements, chooses the `exact`
 *       one on the service's network in a registry token (x402/requirements.ts), refuses a price above
 *       max_amount; the spend is the price plus the 0.10 % fee on top.
 * pay   (the executor, before the build, exactly once) the payment: a payment on record is first looked
 *       for on chain (by the agent's signature); none on record is built and signed as the agent and
 *       recorded (`x402.payment_signed`) before it is sent; the request is retried with
 *       PAYMENT-SIGNATURE (a payment on record that did not land is sent again, the very same bytes,
 *       which the chain can land only once); its settlement and the resource's answer are recorded
 *       (`x402.payment_settled`). A request that got no answer is sent again. An answer without a
 *       settlement, for a payment that is not on chain, is a refusal, but the resource holds the
 *       signed payment and can land it until its blockhash expires: the refusal is recorded
 *       (`x402.payment_refused`, the agent told `x402_payment_unsettled`), the intent stays reserved,
 *       and the executor asks again (PaymentPending) until the chain is past the payment's last valid
 *       block. Then the chain is searched: landed, the payment settled after all (a confirmed payment
 *       with the resource's refusal as its answer); not landed, the intent fails and gives its room
 *       back: nothing was paid, and nothing can be any more.
 * build the protocol fee, from the agent to the treasury in a transaction of its own (the x402
 *       transaction may hold nothing but the payment), under the same intent.
 */
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { ata, transferWithFeeInstructions } from '../../chain/transactions';
import type { Signer } from '../../chain/keys';
import { VALID_BLOCKS } from '../../chain/port';
import { X402PayResponse, type X402PayRequest } from '../../contract/agent/intents';
import { amountFields } from '../../contract/schemas';
import {
  streams,
  type IntentData,
  type ResourceReply,
  type X402PaymentRefused,
  type X402PaymentSettled,
  type X402Terms,
} from '../../domain/events';
import { ServiceError } from '../../errors';
import { amountFromText, amountText, feeOnTop, parseAmount, toBaseUnits } from '../../money';
import {
  checkPaymentAsked,
  checkWithinMax,
  chooseRequirement,
  PAYMENT_RESPONSE_HEADER,
  paymentRefused,
  readPaymentRequired,
  refusalOf,
} from '../../x402/requirements';
import { signPayment } from '../../x402/payment';
import type { ResourceAnswer, ResourceRequest } from '../../x402/port';
import { BuildRefused, PaymentPending, type IntentOf, type PayerContext, type SpendKind } from './kind';
import type { WindowItem } from '../../domain/windows';
import { tokenOf } from './tokens';
import { valueInBase } from './valuation';

type X402Intent = IntentOf<'transfer'>;

export const x402Kind: SpendKind<X402PayRequest, 'transfer', PayerContext> = {
  action: 'transfer',
  answerAmounts: amountFields(X402PayResponse),

  async ask(ctx, req, group) {
    const x402 = x402Of(ctx);
    const maxAmount = parseAmount(req.max_amount, 'max_amount');
    const request: ResourceRequest = {
      url: req.url,
      method: req.method ?? 'GET',
      ...(req.headers && { headers: req.headers }),
      ...(req.body !== undefined && { body: req.body }),
    };
    const first = await x402.resources.request(request);
    checkPaymentAsked(first.status);
    const chosen = chooseRequirement(
      readPaymentRequired(first.headers['payment-required']),
      x402.network,
      ctx.chain.tokens,
    );
    checkWithinMax(chosen, maxAmount);
    const missing = await missingPayeeAccount(ctx, chosen.requirement.payTo, chosen.token);
    if (missing) throw new ServiceError(missing.code, missing.message);
    const { amount } = feeOnTop(chosen.price, chosen.token.decimals);
    return {
      amount,
      value: await valueInBase(ctx, chosen.token, amount, group.baseMint),
      mint: chosen.token.mint,
      decimals: chosen.token.decimals,
      counterparty: chosen.requirement.payTo,
      ...(req.task_id !== undefined && { task_id: req.task_id }),
      x402: {
        url: request.url,
        method: request.method,
        // The agent's headers and body may hold its credentials at the resource: sealed in the log.
        ...((request.headers || request.body !== undefined) && {
          sealed_request: sealRequest(ctx, request),
        }),
        payment_required: chosen.paymentRequired as unknown as Record<string, unknown>,
        requirement: chosen.requirement as unknown as Record<string, unknown>,
        price: amountText(chosen.price),
      },
    };
  },

  pay: (ctx, intent, agent) => payOnce(ctx, intent, agent),

  async build(ctx, intent, agent) {
    const token = tokenOf(ctx, intent.mint);
    return {
      instructions: await transferWithFeeInstructions(
        {
          from: agent,
          to: ctx.chain.treasury,
          mint: intent.mint,
          decimals: token.decimals,
          net: toBaseUnits(amountFromText(intent.protocol_fee), token.decimals),
          fee: 0n,
          treasury: ctx.chain.treasury,
          reference: `intent:${intent.intent_id}:fee`,
        },
        ctx.chain,
      ),
      signers: [],
    };
  },

  answer: (intent, confirmed) => ({
    tx_sig: confirmed.tx_sig,
    status: 'confirmed',
    amount: amountFromText(intent.net_amount),
    protocol_fee: amountFromText(confirmed.fee_tx_sig ? intent.protocol_fee : '0'),
    pay_to: intent.counterparty,
    ...(confirmed.resource && { resource: confirmed.resource }),
    daily_remaining: amountFromText(intent.daily_remaining_after ?? '0'),
    hourly_tx_remaining: intent.hourly_tx_remaining_after ?? 0,
  }),
};

/** The vault's context of a sealed request: binds it to its URL. */
const sealedFor = (url: string) => `x402-request:${url}`;

function sealRequest(ctx: PayerContext, request: ResourceRequest): string {
  const { headers, body } = request;
  const text = JSON.stringify({ ...(headers && { headers }), ...(body !== undefined && { body }) });
  return ctx.vault.seal(new TextEncoder().encode(text), sealedFor(request.url));
}

/** The request an intent's terms make, its sealed headers and body opened. */
function openRequest(ctx: PayerContext, terms: X402Terms): ResourceRequest {
  const opened = terms.sealed_request
    ? (JSON.parse(
        Buffer.from(ctx.vault.open(terms.sealed_request, sealedFor(terms.url))).toString('utf8'),
      ) as {
        headers?: Record<string, string>;
        body?: string;
      })
    : {};
  return { url: terms.url, method: terms.method, ...opened };
}

/**
 * The payment pays into `payTo`'s associated token account for the token, and the `exact` scheme
 * creates none: without it, the facilitator's simulation fails (the resource answers a 402 again) and
 * the signed payment could only expire. So a payee without one is refused before anything is signed,
 * as the resource would have refused it: `x402_payment_refused`, nothing paid.
 */
async function missingPayeeAccount(
  ctx: PayerContext,
  payTo: string,
  token: { symbol: string; mint: string },
): Promise<{ code: 'x402_payment_refused'; message: string } | undefined> {
  const account = await ctx.chain.tokenAccount(payTo, token.mint);
  if (account.exists) return undefined;
  return {
    code: 'x402_payment_refused',
    message: `The resource's payee ${payTo} has no token account for ${token.symbol} (${token.mint}): its associated token account ${account.address} does not exist on chain, so the payment could not land. Nothing was signed or paid; the resource's owner must create that account.`,
  };
}

function x402Of(ctx: PayerContext): NonNullable<PayerContext['x402']> {
  if (!ctx.x402)
    throw new ServiceError('internal_error', 'x402 payments are not configured in this process.');
  return ctx.x402;
}

/** The payment of an accepted x402 intent, exactly once (see the header); resolves once it is settled. */
async function payOnce(ctx: PayerContext, intent: X402Intent, agent: Signer): Promise<void> {
  const terms = intent.x402!;
  const stream = streams.agent(intent.agent_id);
  let signed = (await ctx.agents.load(stream)).state.intents.get(intent.intent_id)?.x402;
  if (signed?.settled) return;
  if (signed?.refused) return untilExpired(ctx, intent, signed);
  if (signed) {
    // On record from an earlier run: the chain is asked before anything is sent or signed.
    const landed = await findPayment(ctx, intent, signed);
    if (landed) return recordSettled(ctx, intent, landed);
  } else {
    const token = tokenOf(ctx, intent.mint);
    // Accepted a while ago (a held payment approved since, say): the payee's account may be gone.
    const missing = await missingPayeeAccount(ctx, intent.counterparty, token);
    if (missing) throw new BuildRefused(missing.code, missing.message);
    const payment = await signPayment({
      paymentRequired: terms.payment_required as unknown as PaymentRequired,
      requirement: terms.requirement as unknown as PaymentRequirements,
      decimals: token.decimals,
      agent,
      blockhash: await ctx.chain.latestBlockhash(),
    });
    signed = await ctx.agents.handle(stream, (state) => {
      const item = state.intents.get(intent.intent_id);
      // Another run recorded one first (or the intent settled): that one is the payment.
      if (item?.status !== 'reserved' || item.x402) return { events: [], result: item?.x402 };
      return {
        events: [
          {
            type: 'x402.payment_signed' as const,
            data: {
              intent_id: intent.intent_id,
              agent_id: intent.agent_id,
              header: payment.header,
              signature: payment.signature,
              last_valid_block_height: String(payment.lastValidBlockHeight),
              at: ctx.now(),
            },
          },
        ],
        result: {
          header: payment.header,
          signature: payment.signature,
          lastValidBlockHeight: String(payment.lastValidBlockHeight),
        },
      };
    });
    // Another run recorded one first: that one is the payment (sending the same bytes again is safe).
    if (!signed) return;
  }
  const answer = await x402Of(ctx).resources.request(openRequest(ctx, terms), signed.header);
  const settlement = settlementOf(answer);
  if (settlement?.success && settlement.transaction)
    return recordSettled(ctx, intent, settlement.transaction, answer);
  // No settlement in the answer: the chain says whether it landed all the same.
  const landed = await findPayment(ctx, intent, signed);
  if (landed) return recordSettled(ctx, intent, landed, answer);
  // Not settled and not on chain (a resource that answers an error before settling, @x402/express's
  // default), unless another run of this intent is settling it now.
  if (settlement?.errorReason === 'duplicate_settlement')
    throw new Error('another run of this payment is settling it: the job retries');
  // The resource holds the signed payment all the same: recorded, and held until it can no longer land.
  const refused = await recordRefused(
    ctx,
    intent,
    refusalOf(answer.status, reasonOf(answer, settlement)),
    answer,
  );
  return untilExpired(ctx, intent, { ...signed, refused });
}

type Signed = NonNullable<WindowItem['x402']>;
type Refused = NonNullable<Signed['refused']>;

/**
 * A refused payment, once the chain is past its last valid block: settled if it landed after all (the
 * resource's refusal is its answer), else the intent fails. Before that, PaymentPending. The height is
 * asked first and the chain searched after: once past it, nothing can land any more, so what the
 * search finds is final.
 */
async function untilExpired(
  ctx: PayerContext,
  intent: X402Intent,
  signed: { signature: string; lastValidBlockHeight: string; refused?: Refused },
): Promise<void> {
  const last = BigInt(signed.lastValidBlockHeight);
  const height = await ctx.chain.blockHeight();
  if (height <= last) throw new PaymentPending(last, height);
  const landed = await findPayment(ctx, intent, signed);
  if (landed) return recordSettled(ctx, intent, landed, signed.refused?.resource);
  const refused = paymentRefused(
    signed.refused?.refusal ?? 'The resource did not settle the payment',
    signed.lastValidBlockHeight,
  );
  throw new BuildRefused(refused.code, refused.message);
}

function settlementOf(answer: ResourceAnswer): SettleResponse | undefined {
  const header = answer.headers[PAYMENT_RESPONSE_HEADER];
  if (!header) return undefined;
  try {
    return decodePaymentResponseHeader(header);
  } catch {
    return undefined;
  }
}

function reasonOf(answer: ResourceAnswer, settlement: SettleResponse | undefined): string {
  if (settlement?.errorReason) return ` (${settlement.errorReason})`;
  try {
    const required = readPaymentRequired(answer.headers['payment-required']);
    return required.error ? ` (${required.error})` : '';
  } catch {
    return '';
  }
}

/** Transactions asked of the history at once. */
const PAGE = 100;

/**
 * The transaction that carries the agent's signature of this payment. It can only have landed after
 * the blockhash it was signed on (150 blocks before its last valid one), so the agent's token account's
 * transactions are looked at, newest first a page at a time, down to that block: a busy agent's payment
 * is not missed for being older than its newest hundred.
 */
async function findPayment(
  ctx: PayerContext,
  intent: X402Intent,
  signed: { signature: string; lastValidBlockHeight: string },
): Promise<string | undefined> {
  const history = ctx.chain.transactionHistory?.();
  if (!history) return undefined;
  const account = await ata(intent.agent_id, intent.mint);
  // A slot is never below its block's height: a transaction in a slot under this came before the payment.
  const signedAt = BigInt(signed.lastValidBlockHeight) - VALID_BLOCKS;
  for (let before: string | undefined; ;) {
    const page = await history.signaturesFor(account, { limit: PAGE, ...(before && { before }) });
    for (const entry of page) {
      const tx = await history.transaction(entry.signature);
      if (tx && tx.slot < signedAt) return undefined;
      if (!entry.failed && tx?.signatures.includes(signed.signature)) return tx.signature;
    }
    if (page.length < PAGE) return undefined;
    before = page[page.length - 1]!.signature;
  }
}

/** The resource's answer as the log keeps it. */
const replyOf = (answer: ResourceAnswer | ResourceReply): ResourceReply => ({
  status: answer.status,
  headers: answer.headers,
  body: answer.body,
  ...(answer.truncated && { truncated: true }),
});

/** What every record of an x402 payment says of it. */
const paymentOf = (intent: X402Intent) => ({
  intent_id: intent.intent_id,
  agent_id: intent.agent_id,
  group_id: intent.group_id,
  url: intent.x402!.url,
  pay_to: intent.counterparty,
  amount: intent.net_amount,
  mint: intent.mint,
});

/**
 * Appends what `record` makes of the payment on record, while its intent is reserved and the payment
 * not settled (nothing once it is, nothing twice: `record` answers undefined for what is recorded).
 */
async function recordPayment(
  ctx: PayerContext,
  intent: X402Intent,
  record: (x402: Signed) => X402PaymentSettled | X402PaymentRefused | undefined,
): Promise<void> {
  await ctx.agents.handle(streams.agent(intent.agent_id), (state) => {
    const item = state.intents.get(intent.intent_id);
    const event =
      item?.status === 'reserved' && item.x402 && !item.x402.settled ? record(item.x402) : undefined;
    return { events: event ? [event] : [], result: undefined };
  });
}

const recordSettled = (
  ctx: PayerContext,
  intent: X402Intent,
  txSig: string,
  answer?: ResourceAnswer | ResourceReply,
) =>
  recordPayment(ctx, intent, () => ({
    type: 'x402.payment_settled',
    data: {
      ...paymentOf(intent),
      tx_sig: txSig,
      ...(answer && { resource: replyOf(answer) }),
      at: ctx.now(),
    },
  }));

/** The refusal of a payment that may still land: recorded once; what is on record is what holds. */
async function recordRefused(ctx: PayerContext, intent: X402Intent, refusal: string, answer: ResourceAnswer) {
  const resource = replyOf(answer);
  await recordPayment(ctx, intent, (x402) =>
    x402.refused
      ? undefined
      : {
          type: 'x402.payment_refused',
          data: {
            ...paymentOf(intent),
            refusal,
            last_valid_block_height: x402.lastValidBlockHeight,
            resource,
            at: ctx.now(),
          },
        },
  );
  return { refusal, resource };
}

/** Whether an intent is an x402 payment (its kind is x402Kind, not transferKind). */
export const isX402 = (intent: IntentData): intent is X402Intent =>
  intent.action === 'transfer' && intent.x402 !== undefined;
