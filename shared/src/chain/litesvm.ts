/**
 * The local chain: LiteSVM, the real Solana runtime with the real SPL Token, Associated Token and
 * Memo programs, in this process. Its whole state is written to a file after transactions (coalesced,
 * one write at a time) and on close, and loaded at start, so a restart keeps every account.
 *
 * The fixtures (fee payer, mint authority, treasury, the mints) derive from a seed, so their
 * addresses stay the same across restarts and machines.
 */
import { lamports, type Address, type EncodedAccount, type Signature, type Transaction } from '@solana/kit';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import type { Token } from '../domain/tokens';
import type { Signer } from './keys';
import { DEFAULT_LOCAL_TOKENS, localFixtures, type LocalFixtures } from './local-fixtures';
import { ChainFailure, type LocalChain, type SignatureStatus, type TokenAccount } from './port';
import {
  ata,
  createMintInstructions,
  mintToInstructions,
  signTransaction,
  transferWithFeeInstructions,
  type SignedTransaction,
  type TransferWithFee,
} from './transactions';

export interface LiteSvmChainOptions {
  /** Where the chain state lives across restarts; in memory only when absent. */
  stateFile?: string;
  /** The secret the fixtures derive from. */
  seed?: string;
  /** The local tokens; by default a 6-decimal stablecoin and a second, 9-decimal token. */
  tokens?: { symbol: string; decimals: number }[];
}

export interface ChainNodeBackend {
  blockhash(): string;
  slot(): bigint;
  advanceSlot(): void;
  account(address: string): EncodedAccount | null;
  /** Executes a transaction; throws ChainFailure when it fails. */
  send(transaction: Transaction): Promise<void>;
  status(signature: string): Promise<SignatureStatus>;
  airdrop(address: string, lamports: bigint): Promise<void>;
  rentExemption(space: bigint): bigint;
}

export class LiteSvmChain implements LocalChain {
  readonly tokens: readonly Token[];
  readonly treasury: string;
  private readonly payer: Signer;
  private readonly authority: Signer;
  private saving: Promise<void> = Promise.resolve();
  /** Token accounts seen to exist (they are never closed here): no lookup next time. */
  private readonly existing = new Set<string>();
  private saveQueued = false;

  private constructor(
    private readonly svm: LiteSVM,
    private readonly options: LiteSvmChainOptions,
    fixtures: LocalFixtures,
  ) {
    this.payer = fixtures.payer;
    this.authority = fixtures.authority;
    this.treasury = fixtures.treasury.address;
    this.tokens = fixtures.mints.map(({ symbol, mint, decimals }) => ({ symbol, mint, decimals }));
  }

  static async open(options: LiteSvmChainOptions = {}): Promise<LiteSvmChain> {
    const fixtures = localFixtures(options.seed, options.tokens ?? DEFAULT_LOCAL_TOKENS);
    const { payer, authority, mints } = fixtures;
    const restored = options.stateFile !== undefined && existsSync(options.stateFile);
    const svm = restored ? LiteSVM.loadFromFile(options.stateFile!) : new LiteSVM();
    const chain = new LiteSvmChain(svm, options, fixtures);
    if (!restored) {
      svm.airdrop(payer.address as Address, lamports(1_000n * 1_000_000_000n));
      for (const m of mints) {
        const rent = svm.minimumBalanceForRentExemption(82n);
        await chain.send(
          signTransaction(
            createMintInstructions(payer, m.signer, authority.address, m.decimals, rent),
            payer,
            [m.signer],
            chain.blockhash(),
          ),
        );
      }
      await chain.save();
    }
    return chain;
  }

  private blockhash() {
    return { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: 0n };
  }

  async tokenAccount(owner: string, mint: string): Promise<TokenAccount> {
    const address = await ata(owner, mint);
    const account = this.svm.getAccount(address as Address);
    if (!account.exists) return { address, exists: false, amount: 0n };
    return { address, exists: true, amount: Buffer.from(account.data).readBigUInt64LE(64) };
  }

  async balances(owner: string): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    for (const t of this.tokens) out.set(t.mint, (await this.tokenAccount(owner, t.mint)).amount);
    return out;
  }

  async prepareTransfer(transfer: TransferWithFee): Promise<SignedTransaction> {
    // In process, looking an account up costs nothing: create token accounts only when missing.
    const exists = async (owner: string) => {
      const account = await ata(owner, transfer.mint);
      if (this.existing.has(account)) return true;
      const found = this.svm.getAccount(account).exists;
      if (found) this.existing.add(account);
      return found;
    };
    const known = { recipient: await exists(transfer.to), treasury: await exists(this.treasury) };
    return signTransaction(
      await transferWithFeeInstructions(transfer, this.payer, known),
      this.payer,
      [transfer.from],
      this.blockhash(),
    );
  }

  async submit(tx: SignedTransaction): Promise<void> {
    await this.send(tx);
  }

  private async send(tx: SignedTransaction): Promise<void> {
    const result = this.svm.sendTransaction(tx.transaction);
    this.scheduleSave();
    if (result instanceof FailedTransactionMetadata) {
      throw new ChainFailure(describe(result.err()), result.meta().logs());
    }
  }

  async status(signature: string): Promise<SignatureStatus> {
    let known: ReturnType<LiteSVM['getTransaction']>;
    try {
      known = this.svm.getTransaction(signature as Signature);
    } catch {
      return 'unknown';
    }
    if (known === null) return 'unknown';
    return known instanceof FailedTransactionMetadata ? 'failed' : 'confirmed';
  }

  async mintTo(owner: string, mint: string, amount: bigint, reference: string): Promise<string> {
    const token = this.tokens.find((t) => t.mint === mint);
    if (!token) throw new ChainFailure(`mint ${mint} is not a local token`);
    const tx = signTransaction(
      await mintToInstructions(this.payer, this.authority, owner, mint, token.decimals, amount, reference),
      this.payer,
      [this.authority],
      this.blockhash(),
    );
    await this.send(tx);
    return tx.signature;
  }

  async fund(address: string, amount: bigint): Promise<void> {
    this.svm.airdrop(address as Address, lamports(amount));
    this.scheduleSave();
  }

  /** Writes the state after the current work; at most one write in flight and one queued. */
  private scheduleSave(): void {
    if (!this.options.stateFile || this.saveQueued) return;
    this.saveQueued = true;
    this.saving = this.saving
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.saveQueued = false;
        return this.save();
      });
  }

  private async save(): Promise<void> {
    const file = this.options.stateFile;
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, this.svm.toBytes());
    renameSync(tmp, file); // a crash mid-write leaves the previous state whole
  }

  async close(): Promise<void> {
    await this.saving;
    await this.save();
  }

  /** What a JSON-RPC node serving this chain needs (rpc-node.ts). */
  node(): ChainNodeBackend {
    return {
      blockhash: () => this.svm.latestBlockhash(),
      slot: () => this.svm.getClock().slot,
      advanceSlot: () => this.svm.warpToSlot(this.svm.getClock().slot + 1n),
      account: (address) => {
        const account = this.svm.getAccount(address as Address);
        return account.exists ? account : null;
      },
      send: async (transaction) =>
        this.send({ transaction, signature: '', wire: new Uint8Array(), lastValidBlockHeight: 0n }),
      status: (signature) => this.status(signature),
      airdrop: (address, amount) => this.fund(address, amount),
      rentExemption: (space) => this.svm.minimumBalanceForRentExemption(space),
    };
  }
}

/** LiteSVM's fieldless transaction errors, by their enum value (litesvm/dist/internal.d.ts). */
const FIELDLESS =
  'AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ProgramCacheHitMaxLimit CommitCancelled'.split(
    ' ',
  );

/** A readable error: "AlreadyProcessed", or "instruction 2: custom program error: 0x1". */
function describe(err: unknown): string {
  if (typeof err === 'number') return FIELDLESS[err] ?? `TransactionError ${err}`;
  const text = String(err);
  const custom = /Custom\((\d+)\)/.exec(text);
  const index = /InstructionError\((\d+)/.exec(text)?.[1] ?? (err as { index?: number }).index;
  if (custom) return `instruction ${index}: custom program error: 0x${Number(custom[1]).toString(16)}`;
  return text;
}
