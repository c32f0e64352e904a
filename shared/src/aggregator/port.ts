/**
 * The swap aggregator port: a quote (input mint, output mint, input amount, slippage → output amount,
 * threshold, price impact, route, expiry), and the instructions that execute a swap, built from a
 * fresh quote of the live state. Amounts are bigint base units. Adapters: the local constant-product
 * pools (local.ts, embedded default and the local chain node) and Jupiter's Swap API v1 (jupiter.ts).
 *
 * What the service does with it: it values and bounds a swap with `quote` when it decides; the
 * executor calls `swap` just before signing, which quotes again and refuses (BelowMinimum) when the
 * live output is under the intent's minimum, so nothing is signed or submitted. The executor signs
 * `instructions` with the agent and `signers` (chain.prepare), and holds `lockKey`, when there is
 * one, from `swap` until the transaction has landed or failed.
 */
import type { Instruction } from '@solana/kit';
import type { Signer } from '../chain/keys';
import type { BuildContext } from '../chain/transactions';
import type { Token } from '../domain/tokens';

export interface AggregatorQuoteRequest {
  inputMint: string;
  outputMint: string;
  /** Base units of the input token (exact in), above zero. */
  amount: bigint;
  /** Slippage the threshold allows, in basis points (0-10,000). */
  slippageBps: number;
}

export interface AggregatorQuote {
  inputMint: string;
  outputMint: string;
  /** Base units paid in: the requested amount. */
  inAmount: bigint;
  /** Base units the route pays out at the quoted state, fees included (0 for a dust input). */
  outAmount: bigint;
  /** The least output at `slippageBps`: `outAmount − floor(outAmount·slippageBps/10⁴)`. */
  otherAmountThreshold: bigint;
  slippageBps: number;
  /**
   * How much worse than the spot price the swap trades, as a fraction in decimal text (`"0.01"` is
   * 1 %), as Jupiter reports its `priceImpactPct` (a fraction despite the name).
   */
  priceImpact: string;
  /** The venues the route crosses, in order, for people (e.g. `["local USDC/SOL"]`). */
  route: string[];
  /** Epoch ms after which the quote's numbers should not be shown as current. */
  expiresAt: number;
}

export interface AggregatorSwapRequest {
  /** The agent's wallet: it pays the input from, and receives the output in, its token accounts. */
  agent: string;
  inputMint: string;
  outputMint: string;
  /** Base units of the input token, above zero. */
  amount: bigint;
  /** The intent's minimum output in base units: below it nothing is built (BelowMinimum). */
  minimumOut: bigint;
  /** Names the intent: written as the transaction's memo. */
  reference: string;
  /** The slippage asked for the live quote (default 50); the built swap never accepts below `minimumOut`. */
  slippageBps?: number;
}

export interface PreparedSwap {
  /** The whole transaction's instructions (memo first); the fee payer and the agent sign them. */
  instructions: Instruction[];
  /** Signers besides the fee payer and the agent (the local pool's authority; none for Jupiter). */
  signers: Signer[];
  /** The live quote the instructions were built from: `outAmount` is what the swap is built to pay. */
  quote: AggregatorQuote;
  /**
   * Swaps with the same key must not be in flight together: hold it from `swap` until the
   * transaction has landed or failed. The local pools fix their output in the transaction, so two
   * swaps priced on the same reserves would both pay out and break the constant product. Absent
   * when the venue itself enforces its price on chain (Jupiter: the threshold).
   */
  lockKey?: string;
}

export interface Aggregator {
  /** The address groups allow-list for swaps (a type-2 entry). */
  readonly address: string;
  /** Quotes a swap; throws AggregatorUnavailable (NoRoute when no route exists) on failure or timeout. */
  quote(request: AggregatorQuoteRequest): Promise<AggregatorQuote>;
  /**
   * Quotes again from live state and builds the swap for `agent`. Throws BelowMinimum when the live
   * output is under `minimumOut` (or is zero), AggregatorUnavailable when it cannot quote or build,
   * and SwapRefused when what the venue answered fails the checks; in each case nothing was signed.
   */
  swap(request: AggregatorSwapRequest, chain: BuildContext): Promise<PreparedSwap>;
  /** The pools it keeps itself, when it does (the local pools); a remote aggregator (Jupiter) lists none. */
  pools?(): Promise<readonly AggregatorPool[]>;
}

/** A pool an aggregator keeps itself: its pair, fee, and each side's token, vault and reserve. */
export interface AggregatorPool {
  /** `A/B` by symbol, in registry order. */
  pair: string;
  feeBps: number;
  tokens: readonly (Token & {
    /** The pool's vault of this token. */
    vault: string;
    /** Its balance in base units (0 before seeding). */
    reserve: bigint;
  })[];
}

/** The aggregator failed, timed out or answered something unusable: 502 `aggregator_unavailable`. */
export class AggregatorUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AggregatorUnavailable';
  }
}

/** No route between the two mints (no pool, or Jupiter's COULD_NOT_FIND_ANY_ROUTE). */
export class NoRoute extends AggregatorUnavailable {
  constructor(message: string) {
    super(message);
    this.name = 'NoRoute';
  }
}

/** Why a swap's instructions were refused. */
export type RefusalReason =
  | 'program' // an instruction of a program we do not allow, or a wrong token program
  | 'mint' // a mint other than the swap's
  | 'owner' // a token account or authority that is not the agent's
  | 'amount' // an input amount other than the one asked
  | 'threshold' // the on-chain minimum below the intent's minimum, or a platform fee
  | 'signer' // a signature asked of someone else, or of the agent outside the swap
  | 'lookup_tables' // the swap needs address lookup tables (we compile legacy messages only)
  | 'unexpected'; // an instruction or a field we did not ask for

/** The venue's answer failed a check; nothing was signed. */
export class SwapRefused extends AggregatorUnavailable {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(`swap refused (${reason}): ${message}`);
    this.name = 'SwapRefused';
  }
}

/** The live output is below the intent's minimum: nothing is signed or submitted. */
export class BelowMinimum extends Error {
  constructor(
    /** The intent's minimum output (base units). */
    readonly expected: bigint,
    /** What the live state would pay (base units). */
    readonly live: bigint,
  ) {
    super(`the live output ${live} is below the minimum ${expected}`);
    this.name = 'BelowMinimum';
  }
}

/** A request's amount and slippage, checked before anything is asked (RangeError: a caller's bug). */
export function checkRequest(request: { amount: bigint; slippageBps?: number }): void {
  if (request.amount <= 0n) throw new RangeError('a swap needs a positive input amount');
  const bps = request.slippageBps;
  if (bps !== undefined && (!Number.isInteger(bps) || bps < 0 || bps > 10_000))
    throw new RangeError('slippage is a whole number of basis points from 0 to 10,000');
}

/** Runs `work` under a deadline: past it, or on any failure of `work`, AggregatorUnavailable. */
export async function withDeadline<T>(what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AggregatorUnavailable(`${what} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work(), deadline]);
  } catch (err) {
    if (err instanceof AggregatorUnavailable || err instanceof BelowMinimum) throw err;
    throw new AggregatorUnavailable(`${what} failed: ${(err as Error).message ?? String(err)}`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
}
