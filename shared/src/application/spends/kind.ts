/**
 * A spend operation, as the pipeline sees it: what it asks (its request as a command for the
 * decision), what it builds on chain once accepted, and what it answers once confirmed. Everything
 * else (idempotency, the decision under the limits, waiting for the outcome, execution exactly once)
 * is the pipeline's, the same for every operation.
 */
import type Big from 'big.js';
import type { Instruction } from '../../chain/port';
import type { Signer } from '../../chain/keys';
import type { Action, IntentConfirmed, IntentData, IntentParams, X402Terms } from '../../domain/events';
import type { GroupState } from '../../domain/group';
import type { ErrorCode } from '../../errors';
import type { Context } from '../context';

/**
 * What a spend kind may reach: the chain, the aggregator, the lending venues and the clock. Never the
 * event store or a repository: the decision, the idempotency and the records are the pipeline's.
 */
export type SpendContext = Pick<Context, 'chain' | 'aggregator' | 'venues' | 'now'>;

/**
 * The x402 payer's, besides: the key vault (the request is sealed in the log), the resource client, and
 * the agent's stream, where the payment it signs is recorded before it is sent (exactly once).
 */
export type PayerContext = SpendContext & Pick<Context, 'vault' | 'x402' | 'agents'>;

/** What a request asks the decision to judge. */
export interface Ask {
  /** In the mint's human units: what the agent pays (a withdrawal: the receipt tokens it redeems). */
  amount: Big;
  /** The amount valued in the group's base token (the limits' unit). */
  value: Big;
  mint: string;
  decimals: number;
  /** Recipient, aggregator or lending program: the allow-list entry it must match. */
  counterparty: string;
  memo?: string;
  /** Transfers: the memo's SHA-256 (hex), put on chain instead of the memo (the memo stays in the log). */
  memo_sha256?: string;
  task_id?: string;
  params?: IntentParams;
  /** An x402 payment's terms (a transfer whose price goes to the counterparty in full, the fee on top). */
  x402?: X402Terms;
}

/** What an accepted intent puts on chain. */
export interface Built {
  instructions: Instruction[];
  /** Signers besides the agent (a pool or venue authority). */
  signers: Signer[];
  /** What the agent gets back, recorded with the confirmation (swap output, receipt tokens, underlying). */
  receives?: { mint: string; amount: bigint };
}

/** Why an accepted intent cannot be built now: it fails with this code, nothing is submitted. */
export class BuildRefused extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BuildRefused';
  }
}

/**
 * A payment made before the build that is not settled and not refused yet: someone else may still land
 * it until block `lastValidBlockHeight` (the chain is at `height`). The intent stays reserved; the
 * executor asks again later.
 */
export class PaymentPending extends Error {
  constructor(
    readonly lastValidBlockHeight: bigint,
    readonly height: bigint,
  ) {
    super(`the payment can still land until block ${lastValidBlockHeight} (the chain is at ${height})`);
    this.name = 'PaymentPending';
  }
}

export type IntentOf<A extends Action> = Extract<IntentData, { action: A }>;

/** Every spend request carries its idempotency key. */
export interface SpendRequest {
  idempotency_key: string;
}

export interface SpendKind<
  Req extends SpendRequest = SpendRequest,
  A extends Action = Action,
  C extends SpendContext = SpendContext,
> {
  readonly action: A;
  /**
   * Answer fields that are amounts (kept as exact text under the idempotency key, answered as numbers):
   * `amountFields` of the answer's schema.
   */
  readonly answerAmounts: readonly string[];
  /** What the request asks, judged against the group (values other tokens at the aggregator's quote). */
  ask(ctx: C, req: Req, group: GroupState): Promise<Ask>;
  /**
   * Whether `ask` calls nothing outside this process for `req` (no quote, no venue's rate, no resource).
   * Then a new key is claimed in the decision's own append instead of in one of its own before the ask
   * (spends/pipeline.ts): a duplicate sent at the same moment asks too, at no cost, and finds the key
   * taken when it appends. Absent: the key is claimed first.
   */
  localAsk?(req: Req): boolean;
  /** Intents sharing a key are built and landed one at a time (a pool whose reserves the build reads). */
  lockKey?(intent: IntentOf<A>): string;
  /**
   * A payment made before the build, landed by someone else (x402: the resource's facilitator), exactly
   * once: its record is in the agent's stream (`x402.payment_signed`, then `x402.payment_settled`).
   * Resolves once it settled; throws BuildRefused when it was refused and nothing was paid, and
   * PaymentPending while it was refused but may still land.
   */
  pay?(ctx: C, intent: IntentOf<A>, agent: Signer): Promise<void>;
  /** What goes on chain; the agent signs besides the signers it names. */
  build(ctx: C, intent: IntentOf<A>, agent: Signer): Promise<Built>;
  /** The agent's answer once confirmed. */
  answer(intent: IntentOf<A>, confirmed: IntentConfirmed['data']): Record<string, unknown>;
}
