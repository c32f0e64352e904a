/**
 * The chain port: the token registry, token balances, a transaction prepared from instructions
 * (signed first, so its signature can be recorded before it is submitted), submission, signature
 * status, and on the local chain only, minting as an outside payment. What each operation puts in
 * its transaction is built by the builders beside this file (transactions.ts), the same for every
 * adapter. Adapters: LiteSVM (in-process, the real Solana runtime and SPL Token program) and Solana
 * JSON-RPC.
 */
import type { Instruction } from '@solana/kit';
import type { Token } from '../domain/tokens';
import type { Signer } from './keys';
import type { SignedTransaction, TransferWithFee } from './transactions';

export type SignatureStatus = 'confirmed' | 'failed' | 'unknown';

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
  /** Sends and waits for confirmation; throws ChainFailure when it fails or its blockhash expires. */
  submit(tx: SignedTransaction): Promise<void>;
  status(signature: string): Promise<SignatureStatus>;
  close(): Promise<void>;
}

/** A chain the service controls (local): it can pay anyone as an outside party would. */
export interface LocalChain extends Chain {
  /** Mints `amount` base units to `owner`; returns the signature. `reference` keeps repeated payments apart. */
  mintTo(owner: string, mint: string, amount: bigint, reference: string): Promise<string>;
  /** Gives an address SOL for fees (local only). */
  fund(address: string, amount: bigint): Promise<void>;
}

export type { Signer, SignedTransaction, TransferWithFee };
