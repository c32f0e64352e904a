/**
 * The chain port: the token registry, token balances, a transaction prepared from instructions
 * (signed first, so its signature can be recorded before it is submitted), submission, signature
 * status, the chain's clock and raw account reads, and on the local chain only, minting as an outside
 * payment and moving the clock. What each operation puts in
 * its transaction is built by the builders beside this file (transactions.ts), the same for every
 * adapter. Adapters: LiteSVM (in-process, the real Solana runtime and SPL Token program) and Solana
 * JSON-RPC.
 */
import type { Instruction } from '@solana/kit';
import type { Token } from '../domain/tokens';
import type { Signer } from './keys';
import type { SignedTransaction, TransferWithFee } from './transactions';
import type { TransactionHistoryReader } from './payments';
import type { PrioritizationFee } from './compute-budget';

export type SignatureStatus = 'confirmed' | 'failed' | 'unknown';

/** Blocks a blockhash stays valid after the block it came with, as on Solana (MAX_PROCESSING_AGE). */
export const VALID_BLOCKS = 150n;

/** Solana's target time of a slot: how long the blocks a signed transaction has left may take. */
export const SLOT_TARGET_MS = 400;

/** A transaction the chain refused or that failed: its error and program logs (see classifyChainFailure). */
export class ChainFailure extends Error {
  constructor(
    readonly error: string,
    readonly logs: readonly string[] = [],
  ) {
    super(`chain transaction failed: ${error}`);
    this.name = 'ChainFailure';
  }
}

export interface TokenAccount {
  address: string;
  exists: boolean;
  amount: bigint;
}

/** An account as the chain holds it. */
export interface ChainAccount {
  /** The program that owns it. */
  owner: string;
  lamports: bigint;
  data: Uint8Array;
}

/** The Clock sysvar: its `unix_timestamp` is the chain's time. */
export const SYSVAR_CLOCK_ADDRESS = 'SysvarC1ock11111111111111111111111111111111';

export interface Chain {
  readonly tokens: readonly Token[];
  /** The wallet that receives protocol fees. */
  readonly treasury: string;
  tokenAccount(owner: string, mint: string): Promise<TokenAccount>;
  /** Base-unit balances of an owner's token accounts, for every registry token (0 when absent). */
  balances(owner: string): Promise<Map<string, bigint>>;
  /** The fee payer of every transaction the service prepares (it pays for accounts created, too). */
  readonly feePayer: string;
  /**
   * Whether an account is known to exist, so a builder may leave out its (idempotent) creation. May
   * answer false for an account that exists: creating it again is harmless, only dearer.
   */
  accountKnown(address: string): Promise<boolean>;
  /** Signs the instructions (the fee payer first, then `signers`) against a fresh blockhash; nothing is sent yet. */
  prepare(instructions: readonly Instruction[], signers: readonly Signer[]): Promise<SignedTransaction>;
  /**
   * A recent blockhash and the last block height at which a transaction on it can land, for a
   * transaction someone else pays the fee of and sends (an x402 payment the resource's facilitator lands).
   */
  latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }>;
  /**
   * The chain's block height: a transaction whose blockhash's last valid block height is below it can
   * never land (an x402 payment someone else holds, say).
   */
  blockHeight(): Promise<bigint>;
  /**
   * getRecentPrioritizationFees: per recent slot, the compute-unit price (micro-lamports) a
   * transaction writing all of `accounts` landed at, at least (what a price must beat to compete).
   */
  recentPrioritizationFees(accounts: readonly string[]): Promise<PrioritizationFee[]>;
  /**
   * The compute units a signed transaction consumes when run now, its signatures unchecked and its
   * blockhash as the latest (simulateTransaction); undefined when it fails or the chain cannot tell.
   * A trial: the transaction sent is signed anew, with the limit the trial sized.
   */
  unitsConsumed(tx: SignedTransaction): Promise<bigint | undefined>;
  /** Sends and waits for confirmation; throws ChainFailure when it fails or its blockhash expires. */
  submit(tx: SignedTransaction): Promise<void>;
  status(signature: string): Promise<SignatureStatus>;
  /** The chain's time: the Clock sysvar's `unix_timestamp`, in seconds (what programs see). */
  clock(): Promise<bigint>;
  /** An account's owner, lamports and data; undefined when it does not exist. */
  readAccount(address: string): Promise<ChainAccount | undefined>;
  /**
   * The chain's transaction history by account (getSignaturesForAddress, getTransaction), which
   * reconciliation reads; undefined when this chain keeps none.
   */
  transactionHistory?(): TransactionHistoryReader | undefined;
  close(): Promise<void>;
}

/** A chain the service controls (local): it can pay anyone as an outside party would. */
export interface LocalChain extends Chain {
  /** Whether `mintTo` mints this mint: the chain's tokens do, the venue's receipt tokens do not. */
  mintable(mint: string): boolean;
  /** Mints `amount` base units to `owner`; returns the signature. `reference` keeps repeated payments apart. */
  mintTo(owner: string, mint: string, amount: bigint, reference: string): Promise<string>;
  /** Gives an address SOL for fees (local only). */
  fund(address: string, amount: bigint): Promise<void>;
  /**
   * Moves the chain's clock forward by `seconds` (nothing else: slots and blockhashes stay); returns
   * the new time. The local chain's clock moves only this way.
   */
  warp(seconds: bigint): Promise<bigint>;
  /** Passes `count` slots at once (each with a new blockhash): older blockhashes expire. Returns the new height. */
  passSlots(count: number): Promise<bigint>;
}

/** An instruction as the chain's codecs build it (@solana/kit's), for those who build them. */
export type { Instruction, Signer, SignedTransaction, TransferWithFee, PrioritizationFee };
