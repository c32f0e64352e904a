/**
 * The lending venue port: what a deposit and a withdrawal put on chain, and an owner's position.
 *
 * A venue takes an underlying token (USDC) and mints a receipt token (kUSDC) worth a growing amount
 * of it; redeeming the receipt tokens pays the underlying back at the rate of that moment. The
 * adapter builds the instructions and names the signers it adds (the agent, who owns the tokens,
 * signs too: the caller passes `[agent, ...signers]` to `chain.prepare`), and says how much the
 * transaction mints or pays. The caller records, signs, submits and answers.
 *
 * Adapters: the local venue (venues/local.ts, SPL accounts on the local chain). docs/lending.md says
 * what a Kamino (klend) adapter would take.
 */
import type { Instruction } from '@solana/kit';
import type { Signer } from '../chain/keys';
import type { ExchangeRate } from '../domain/venue';

export type VenueAction = 'deposit' | 'withdraw';

/** Why a venue refuses a request before anything is signed. */
export type VenueRefusal =
  /** `cpi_data` is not an instruction layout the venue knows (or disagrees with the request). */
  | 'cpi_data'
  /** The mint is not one the venue takes (or, for a deposit, is a receipt token). */
  | 'mint'
  /** The amount is zero, above what a token account holds, or too small to mint or pay one unit. */
  | 'amount'
  /** The venue cannot pay the withdrawal now (its vault holds less than the payout). */
  | 'liquidity';

/**
 * A request the venue refuses: nothing was signed, nothing moved. The caller maps `reason` to the
 * contract: `cpi_data` → `validation_error` on `/cpi_data`, `mint` → `validation_error` on `/mint`,
 * `amount` → `invalid_amount`, `liquidity` → `service_unavailable` (retry later).
 */
export class VenueRefused extends Error {
  constructor(
    readonly reason: VenueRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'VenueRefused';
  }
}

/** `cpi_data` the venue does not accept: a `validation_error` on `/cpi_data`, with this message. */
export class VenueDataRejected extends VenueRefused {
  constructor(message: string) {
    super('cpi_data', message);
    this.name = 'VenueDataRejected';
  }
}

export interface VenueDeposit {
  /** The agent's wallet: pays the underlying from its token account and receives the receipt tokens. */
  agent: string;
  /** The underlying mint. */
  mint: string;
  /** Underlying base units paid in. */
  amount: bigint;
  cpiData?: Uint8Array;
  /** Names the intent (memo), as for a transfer. */
  reference: string;
}

export interface VenueWithdraw {
  agent: string;
  /** The underlying mint, or the receipt mint (both name the same position). */
  mint: string;
  /** Receipt-token base units to redeem. */
  receiptAmount: bigint;
  cpiData?: Uint8Array;
  reference: string;
}

/** What a transaction does, before it is signed. */
export interface VenuePlan {
  instructions: Instruction[];
  /** The venue's own signers (besides the agent and the fee payer). */
  signers: Signer[];
  underlyingMint: string;
  receiptMint: string;
  /** The rate the amounts were computed at (underlying per receipt token). */
  rate: ExchangeRate;
}

export interface VenueDepositPlan extends VenuePlan {
  /** Receipt-token base units the deposit mints to the agent. */
  receiptAmount: bigint;
}

export interface VenueWithdrawPlan extends VenuePlan {
  /** Underlying base units the withdrawal pays to the agent. */
  underlyingAmount: bigint;
}

export interface VenuePosition {
  underlyingMint: string;
  receiptMint: string;
  /** Receipt-token base units the owner holds. */
  receipt: bigint;
  /** What redeeming them all would pay now (rounded down). */
  underlying: bigint;
}

export interface LendingVenue {
  /** The venue's identifier: `lending_program` in requests, and the allow-list entry (type 2). */
  readonly program: string;
  readonly name: string;
  /** The underlying mints it takes. */
  readonly mints: readonly string[];
  /** The receipt mint of an underlying mint (undefined when the venue does not take it). */
  receiptMint(underlying: string): string | undefined;
  /** The underlying mint named by an underlying or a receipt mint (undefined when neither). */
  underlyingOf(mint: string): string | undefined;
  /**
   * Accepts only instruction layouts the venue knows, for this action and amount; throws
   * VenueDataRejected otherwise. `deposit` and `withdraw` check again.
   */
  checkCpiData(action: VenueAction, data: Uint8Array | undefined, amount: bigint): void;
  /** The underlying rate now (underlying per receipt token) of a mint the venue takes. */
  exchangeRate(mint: string): Promise<ExchangeRate>;
  /** Pays `amount` underlying in and mints receipt tokens, in one transaction. Throws VenueRefused. */
  deposit(d: VenueDeposit): Promise<VenueDepositPlan>;
  /** Burns receipt tokens and pays the underlying, in one transaction. Throws VenueRefused. */
  withdraw(w: VenueWithdraw): Promise<VenueWithdrawPlan>;
  /** An owner's position in one mint (underlying or receipt mint). */
  position(owner: string, mint: string): Promise<VenuePosition>;
}

/** `GET /api/v1/venues`: the venues, each with the underlying mints it takes. */
export function venueListing(venues: readonly LendingVenue[]): {
  venues: { lending_program: string; name: string; mints: string[] }[];
} {
  return {
    venues: venues.map((v) => ({ lending_program: v.program, name: v.name, mints: [...v.mints] })),
  };
}
