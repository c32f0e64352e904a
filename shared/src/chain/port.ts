/**
 * The chain port: the token registry, token balances, the transfer-with-fee transaction (signed
 * first, so its signature can be recorded before it is submitted), submission, signature status,
 * and on the local chain only, minting as an outside payment. Adapters: LiteSVM (in-process, the
 * real Solana runtime and SPL Token program) and Solana JSON-RPC.
 */
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
  /** Signs a transfer-with-fee against a fresh blockhash; nothing is sent yet. */
  prepareTransfer(transfer: TransferWithFee): Promise<SignedTransaction>;
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
