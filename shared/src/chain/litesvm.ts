/**
 * The local chain: LiteSVM, the real Solana runtime with the real SPL Token, Associated Token and
 * Memo programs, in this process. With a state file, every change is journaled before it is answered
 * and the whole state is written at most every SNAPSHOT_EVERY_MS and on close (journal.ts), so a
 * restart, or a crash, keeps every account and every transaction that was answered.
 *
 * The fixtures (fee payer, mint authority, treasury, the mints, the lending venue's receipt mints)
 * derive from a seed, so their addresses stay the same across restarts and machines. A mint missing
 * at start is created (a state file from before the venue gets its receipt mints).
 *
 * The clock (the Clock sysvar's `unix_timestamp`) starts at 0 and moves only when `warp` moves it:
 * time on this chain is deterministic, and a test can make a year pass at once.
 *
 * No transaction lands twice: a signature in the ledger of every transaction that ran (landed or
 * failed, kept beside the state file) is refused as AlreadyProcessed, however old, and `status`
 * answers from it. As on a cluster, a transaction lands only while its blockhash is valid: each slot
 * brings a new blockhash, valid for VALID_BLOCKS slots (the block height is the slot here: no slot is
 * skipped), and none from before a restart is valid after it. LiteSVM itself knows one blockhash, so
 * its own check is off and this one stands in (BlockhashNotFound). Slots pass when the process that
 * owns the chain says so (`slotMs`: the chain node, the embedded service) or a test does (passSlots);
 * on a chain whose slots never pass, a blockhash never expires.
 *
 * With `history`, it also keeps the newest transactions with their balances before and after
 * (history.ts, also beside the state file): what the chain node answers getSignaturesForAddress and
 * getTransaction from, what `incomingPayments` reads, and what reconciliation reads (the embedded
 * service keeps it for that).
 */
import {
  getTransactionDecoder,
  getTransactionEncoder,
  lamports,
  type Address,
  type EncodedAccount,
  type Instruction,
  type Signature,
  type Transaction,
} from '@solana/kit';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import bs58 from 'bs58';
import type { Token } from '../domain/tokens';
import { inSpan } from '../tracing/spans';
import type { Signer } from './keys';
import { blockhashBytesOf, readMessage } from './message';
import type { PrioritizationFee } from './compute-budget';
import { RecentPrioritizationFees } from './prioritization-fees';
import { StateJournal, type JournalEntry } from './journal';
import { TRANSACTION_ERRORS, transactionErrorJson, type TransactionErrorJson } from './transaction-error';
import { TransactionHistory, transactionView, type AccountReader, type Captured } from './history';
import {
  readIncomingPayments,
  type PaymentQuery,
  type PaymentSource,
  type TransactionHistoryReader,
} from './payments';
import { DEFAULT_LOCAL_TOKENS, localFixtures, localTokens, type LocalFixtures } from './local-fixtures';
import {
  ChainFailure,
  VALID_BLOCKS,
  type ChainAccount,
  type LocalChain,
  type SignatureStatus,
  type TokenAccount,
} from './port';
import {
  ata,
  createMintInstructions,
  mintToInstructions,
  signTransaction,
  type SignedTransaction,
} from './transactions';

export interface LiteSvmChainOptions {
  /** Where the chain state lives across restarts; in memory only when absent. */
  stateFile?: string;
  /** The secret the fixtures derive from. */
  seed?: string;
  /** The local tokens; by default a 6-decimal stablecoin and a second, 9-decimal token. */
  tokens?: { symbol: string; decimals: number }[];
  /** Keep the newest this many transactions' history (getSignaturesForAddress, getTransaction); none when absent. */
  history?: number;
  /** A slot passes every this many milliseconds (a new blockhash with it); slots pass only when asked when absent. */
  slotMs?: number;
}

export interface SimulateOptions {
  /** Check the signatures (a validator's `sigVerify`). */
  sigVerify: boolean;
  /** Run it as if its blockhash were the latest (`replaceRecentBlockhash`). */
  replaceBlockhash: boolean;
}

/** What a simulation tells: the fields of simulateTransaction's answer, and the accounts it left. */
export interface ChainSimulation {
  /** The transaction's error as Solana's RPC writes it (`"BlockhashNotFound"`, `{InstructionError: [0, {Custom: 1}]}`), or null. */
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: { programId: string; data: Uint8Array } | null;
  /** The accounts as the transaction left them (none when it failed). */
  accounts: ReadonlyMap<string, EncodedAccount>;
}

export interface ChainNodeBackend {
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint };
  /** Whether a blockhash (base58) can still land a transaction. */
  isBlockhashValid(blockhash: string): boolean;
  slot(): bigint;
  advanceSlot(): void;
  account(address: string): EncodedAccount | null;
  /** Executes a transaction; throws ChainFailure when it fails. */
  send(transaction: Transaction): Promise<void>;
  status(signature: string): Promise<SignatureStatus>;
  /** Pays `lamports` to `address` from the runtime's airdrop account; resolves to the transaction's signature. */
  airdrop(address: string, lamports: bigint): Promise<string>;
  /** Runs a transaction without keeping anything it changed (simulateTransaction). */
  simulate(transaction: Transaction, options: SimulateOptions): ChainSimulation;
  /** getRecentPrioritizationFees: per recent slot, what a transaction writing all of `accounts` paid at least. */
  prioritizationFees(accounts: readonly string[]): PrioritizationFee[];
  rentExemption(space: bigint): bigint;
  /** A hash naming this chain: the same for one seed across restarts and machines. */
  genesisHash(): string;
  epochInfo(): { epoch: bigint; slotIndex: bigint; slotsInEpoch: bigint; transactionCount: number };
  /** Moves the clock forward; returns the new unix timestamp. */
  warp(seconds: bigint): Promise<bigint>;
  /** Passes `count` slots at once; returns the new slot. */
  passSlots(count: number): Promise<bigint>;
  /** The transactions that ran, by account (absent when the chain keeps no history). */
  history?: TransactionHistory;
}

const wireDecoder = getTransactionDecoder();
const wireEncoder = getTransactionEncoder();

/**
 * The runtime's own transaction history: none. The ledger has every signature (duplicates, statuses)
 * and history.ts the transactions' details; the runtime's history is kept in its state, and grew it
 * past what its snapshot can write (bincode's 4 MiB for one sequence): the chain node died writing its
 * state after about 20,000 transactions (found by the soak bench, docs/performance.md).
 */
const HISTORY = 0n;
/** How often at most the whole state is written (about 3 ms of work for 1.4 MB); the journal has the rest. */
const SNAPSHOT_EVERY_MS = 1_000;
/** Slots advance without a snapshot; one is due when the journal grows this long all the same. */
const JOURNAL_LINES = 10_000;

export class LiteSvmChain implements LocalChain, PaymentSource {
  readonly tokens: readonly Token[];
  readonly treasury: string;
  private readonly payer: Signer;
  private readonly authority: Signer;
  /** The mints `mintTo` may mint: the tokens, not the venue's receipt tokens. */
  private readonly mintable_: ReadonlyMap<string, number>;
  private snapshotDue: NodeJS.Timeout | undefined;
  private closed = false;
  /** Accounts seen to exist (token accounts are never closed here): no lookup next time. */
  private readonly existing = new Set<string>();
  /** Every signature that landed or failed, and what is not yet written to the ledger file. */
  private readonly ledger = new Map<string, 'confirmed' | 'failed'>();
  private unsaved: string[] = [];
  /** The valid blockhashes (their 32 bytes as latin1 text) and the last block height each can land at. */
  private readonly validBlockhashes = new Map<string, bigint>();
  private latest = { blockhash: '', lastValidBlockHeight: 0n };
  private slots: NodeJS.Timeout | undefined;
  private readonly history: TransactionHistory | undefined;
  private readonly genesisHash: string;
  /** Who watches which account (watchAccount): told the signature of each transaction that touches it. */
  private readonly watchers = new Map<string, Set<(signature: string) => void>>();
  /** The compute-unit prices of what executed, by slot and written account (getRecentPrioritizationFees). */
  private readonly fees = new RecentPrioritizationFees();

  private constructor(
    private readonly svm: LiteSVM,
    private readonly options: LiteSvmChainOptions,
    fixtures: LocalFixtures,
    private readonly journal: StateJournal | undefined,
  ) {
    this.payer = fixtures.payer;
    this.authority = fixtures.authority;
    this.treasury = fixtures.treasury.address;
    this.genesisHash = bs58.encode(createHash('sha256').update(`genesis ${fixtures.payer.address}`).digest());
    this.tokens = localTokens(fixtures);
    this.mintable_ = new Map(fixtures.mints.map((m) => [m.mint, m.decimals]));
    if (options.history)
      this.history = new TransactionHistory(
        accountReader(svm),
        options.history,
        options.stateFile && `${options.stateFile}.history`,
      );
  }

  static async open(options: LiteSvmChainOptions = {}): Promise<LiteSvmChain> {
    const fixtures = localFixtures(options.seed, options.tokens ?? DEFAULT_LOCAL_TOKENS);
    const { payer, authority, mints, venue } = fixtures;
    const opened = options.stateFile === undefined ? undefined : StateJournal.open(options.stateFile);
    const state = opened?.restored.state;
    const restored = state !== undefined;
    const svm = (restored ? LiteSVM.fromBytes(state) : new LiteSVM())
      .withTransactionHistory(HISTORY)
      .withBlockhashCheck(false);
    const chain = new LiteSvmChain(svm, options, fixtures, opened?.journal);
    if (restored) {
      const ledgerFile = `${options.stateFile}.ledger`;
      if (existsSync(ledgerFile)) {
        for (const line of readFileSync(ledgerFile, 'utf8').split('\n')) {
          const [sig, status] = line.split(' ');
          if (sig && (status === 'confirmed' || status === 'failed')) chain.ledger.set(sig, status);
        }
      }
      chain.replay(opened!.restored.entries);
      // Whatever was signed before the restart can no longer land; what landed is in the ledger.
      svm.expireBlockhash();
    }
    chain.newBlockhash();
    if (!restored) svm.airdrop(payer.address as Address, lamports(1_000n * 1_000_000_000n));
    const wanted = [
      ...mints.map((m) => ({ ...m, authority: authority.address })),
      ...venue.receipts.map((r) => ({ ...r, authority: venue.authority.address })),
    ];
    const missing = wanted.filter((m) => !svm.getAccount(m.mint as Address).exists);
    for (const m of missing) {
      const rent = svm.minimumBalanceForRentExemption(82n);
      await chain.send(
        signTransaction(
          createMintInstructions(payer, m.signer, m.authority, m.decimals, rent),
          payer,
          [m.signer],
          chain.blockhash(),
        ),
      );
    }
    if (!restored || missing.length > 0) chain.save();
    if (options.slotMs !== undefined) {
      chain.slots = setInterval(() => chain.advanceSlot(), options.slotMs);
      chain.slots.unref();
    }
    return chain;
  }

  private blockhash() {
    return this.latest;
  }

  /** A new latest blockhash, valid until VALID_BLOCKS slots from now; those past their last slot are forgotten. */
  private newBlockhash(): void {
    const slot = this.svm.getClock().slot;
    for (const [hash, last] of this.validBlockhashes) if (last < slot) this.validBlockhashes.delete(hash);
    if (this.latest.blockhash !== '') this.svm.expireBlockhash();
    const blockhash = this.svm.latestBlockhash();
    this.latest = { blockhash, lastValidBlockHeight: slot + VALID_BLOCKS };
    this.validBlockhashes.set(Buffer.from(bs58.decode(blockhash)).toString('latin1'), slot + VALID_BLOCKS);
  }

  /** Whether a transaction's blockhash can still land it. */
  private blockhashValid(transaction: Transaction): boolean {
    return this.stillValid(
      Buffer.from(blockhashBytesOf(new Uint8Array(transaction.messageBytes))).toString('latin1'),
    );
  }

  private stillValid(hash: string): boolean {
    const last = this.validBlockhashes.get(hash);
    return last !== undefined && last >= this.svm.getClock().slot;
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

  get feePayer(): string {
    return this.payer.address;
  }

  // In process, looking an account up costs nothing.
  async accountKnown(address: string): Promise<boolean> {
    if (this.existing.has(address)) return true;
    const found = this.svm.getAccount(address as Address).exists;
    if (found) this.existing.add(address);
    return found;
  }

  async latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    return this.latest;
  }

  async blockHeight(): Promise<bigint> {
    return this.svm.getClock().slot;
  }

  async prepare(
    instructions: readonly Instruction[],
    signers: readonly Signer[],
  ): Promise<SignedTransaction> {
    return signTransaction(instructions, this.payer, signers, this.blockhash());
  }

  /**
   * Sends a prepared transaction, or the wire bytes of one on record (an executor resending after a
   * crash). It lands (or fails) as it is sent: one `chain.send` span, no confirmation to wait for.
   */
  async submit(tx: SignedTransaction): Promise<void> {
    await inSpan('chain.send', () =>
      this.send(tx.transaction ? tx : { ...tx, transaction: wireDecoder.decode(tx.wire) as Transaction }),
    );
  }

  private async send(tx: SignedTransaction): Promise<void> {
    if (this.ledger.has(tx.signature)) throw new ChainFailure('AlreadyProcessed');
    if (!this.blockhashValid(tx.transaction)) throw new ChainFailure('BlockhashNotFound');
    const { ran, failure } = this.run(tx.transaction, tx.signature);
    if (ran) {
      const wire = tx.wire.length > 0 ? tx.wire : wireEncoder.encode(tx.transaction);
      this.changed({ tx: Buffer.from(wire).toString('base64') });
    }
    if (failure) throw failure;
  }

  /** Runs a transaction: whether it ran (a refused one leaves no trace), and how it failed. */
  private run(transaction: Transaction, signature: string): { ran: boolean; failure?: ChainFailure } {
    const captured = this.history?.capture(new Uint8Array(transaction.messageBytes));
    const result = this.svm.sendTransaction(transaction);
    if (!(result instanceof FailedTransactionMetadata)) {
      this.executed(transaction, captured);
      this.landed(transaction, signature, 'confirmed', captured);
      return { ran: true };
    }
    const error = describe(result.err());
    const failure = new ChainFailure(error, result.meta().logs());
    // A transaction refused before it ran (duplicate, stale blockhash) leaves no trace to record.
    if (/^(AlreadyProcessed|BlockhashNotFound|SignatureFailure|SanitizeFailure)$/.test(error))
      return { ran: false, failure };
    this.executed(transaction, captured);
    this.landed(transaction, signature, 'failed', captured, error);
    return { ran: true, failure };
  }

  /** Its compute-unit price, for the slot it ran in and the accounts it wrote (a failed one paid too). */
  private executed(transaction: Transaction, captured: Captured | undefined): void {
    const message = captured?.message ?? readMessage(new Uint8Array(transaction.messageBytes));
    this.fees.executed(this.svm.getClock().slot, message);
  }

  /** What transactions writing all of `accounts` paid per compute unit in the recent slots, as a node reports it. */
  async recentPrioritizationFees(accounts: readonly string[]): Promise<PrioritizationFee[]> {
    return this.fees.recent(accounts, this.svm.getClock().slot);
  }

  /** The units a signed transaction consumes when run now; undefined when it fails. */
  async unitsConsumed(tx: SignedTransaction): Promise<bigint | undefined> {
    const result = this.simulate(tx.transaction, { sigVerify: false, replaceBlockhash: true });
    return result.err === null ? result.unitsConsumed : undefined;
  }

  private landed(
    transaction: Transaction,
    signature: string,
    status: 'confirmed' | 'failed',
    captured: Captured | undefined,
    error?: string,
  ): void {
    this.ledger.set(signature, status);
    this.unsaved.push(`${signature} ${status}`);
    if (captured) this.recordHistory(transaction, signature, captured, error);
    if (captured && this.watchers.size > 0)
      for (const key of new Set(captured.message.accountKeys))
        this.watchers.get(key)?.forEach((touched) => touched(signature));
  }

  private recordHistory(
    transaction: Transaction,
    signature: string,
    captured: Captured,
    error: string | undefined,
  ): void {
    const clock = this.svm.getClock();
    this.history!.landed(captured, {
      signature,
      signatures: Object.values(transaction.signatures).map((s) => s ?? new Uint8Array(64)),
      slot: clock.slot,
      blockTime: clock.unixTimestamp,
      ...(error !== undefined && { error }),
    });
  }

  /** Payments to `owner` from its history (payments.ts); only a chain that keeps one can answer. */
  async incomingPayments(owner: string, mints: readonly string[], query?: PaymentQuery) {
    const history = this.transactionHistory();
    if (!history) throw new Error('this chain keeps no transaction history (LiteSvmChainOptions.history)');
    return readIncomingPayments(history, owner, mints, query);
  }

  /**
   * Tells `touched` the signature of each transaction that touches `address` from now on, as the
   * chain node's logsSubscribe does (payments.ts); only a chain that keeps its history tells.
   */
  watchAccount(address: string, touched: (signature: string) => void): () => void {
    const set = this.watchers.get(address) ?? new Set();
    this.watchers.set(address, set.add(touched));
    return () => {
      set.delete(touched);
      if (set.size === 0 && this.watchers.get(address) === set) this.watchers.delete(address);
    };
  }

  /** Its history as getSignaturesForAddress and getTransaction give it; undefined when it keeps none. */
  transactionHistory(): TransactionHistoryReader | undefined {
    const history = this.history;
    if (!history) return undefined;
    return {
      signaturesFor: async (address, options) =>
        history
          .signaturesFor(address, options)
          .map((t) => ({ signature: t.signature, failed: t.err !== null })),
      transaction: async (signature) => {
        const found = history.get(signature);
        return found && transactionView(found);
      },
    };
  }

  async status(signature: string): Promise<SignatureStatus> {
    const recorded = this.ledger.get(signature);
    if (recorded) return recorded;
    let known: ReturnType<LiteSVM['getTransaction']>;
    try {
      known = this.svm.getTransaction(signature as Signature);
    } catch {
      return 'unknown';
    }
    if (known === null) return 'unknown';
    return known instanceof FailedTransactionMetadata ? 'failed' : 'confirmed';
  }

  mintable(mint: string): boolean {
    return this.mintable_.has(mint);
  }

  async mintTo(owner: string, mint: string, amount: bigint, reference: string): Promise<string> {
    const decimals = this.mintable_.get(mint);
    if (decimals === undefined) throw new ChainFailure(`mint ${mint} is not a local token the chain mints`);
    const tx = signTransaction(
      await mintToInstructions(this.payer, this.authority, owner, mint, decimals, amount, reference),
      this.payer,
      [this.authority],
      this.blockhash(),
    );
    await this.send(tx);
    return tx.signature;
  }

  async fund(address: string, amount: bigint): Promise<void> {
    this.airdrop(address, amount);
  }

  /** An airdrop's transaction lands in the ledger like any other: its signature's status is known. */
  private airdrop(address: string, amount: bigint): string {
    const result = this.runAirdrop(address, amount);
    if (!result || result instanceof FailedTransactionMetadata)
      throw new ChainFailure(
        result ? describe(result.err()) : 'the airdrop did not run',
        result?.meta().logs(),
      );
    const signature = bs58.encode(result.signature());
    this.ledger.set(signature, 'confirmed');
    this.unsaved.push(`${signature} confirmed`);
    this.changed({ airdrop: [address, amount.toString()] });
    return signature;
  }

  /**
   * The runtime's airdrop is a transfer signed on the latest blockhash: the same one asked twice on one
   * blockhash would be the same transaction, and the runtime keeps no history to refuse it (HISTORY).
   * A faucet pays twice, in two transactions: so does this, each on a blockhash of its own.
   */
  private runAirdrop(address: string, amount: bigint): ReturnType<LiteSVM['airdrop']> {
    this.newBlockhash();
    return this.svm.airdrop(address as Address, lamports(amount));
  }

  /**
   * Runs a transaction as it would run now and keeps nothing: with `sigVerify` false its signatures
   * are not checked, with `replaceBlockhash` its blockhash counts as the latest (a validator's
   * replaceRecentBlockhash). The runtime's own checks are back on before it returns.
   */
  private simulate(transaction: Transaction, options: SimulateOptions): ChainSimulation {
    if (!options.replaceBlockhash && !this.blockhashValid(transaction))
      return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n, returnData: null, accounts: new Map() };
    this.svm.withSigverify(options.sigVerify);
    const result = (() => {
      try {
        return this.svm.simulateTransaction(transaction);
      } finally {
        this.svm.withSigverify(true);
      }
    })();
    const meta = result.meta();
    const returned = meta.returnData();
    const data = returned.data();
    const failed = result instanceof FailedTransactionMetadata;
    return {
      err: failed ? transactionErrorJson(result.err()) : null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData: data.length > 0 ? { programId: bs58.encode(returned.programId()), data } : null,
      accounts: new Map(failed ? [] : result.postAccounts().map((a) => [a.address as string, a])),
    };
  }

  async clock(): Promise<bigint> {
    return this.svm.getClock().unixTimestamp;
  }

  async warp(seconds: bigint): Promise<bigint> {
    if (seconds < 0n) throw new RangeError('the clock only moves forward');
    const now = this.moveClock(seconds);
    this.changed({ warp: seconds.toString() });
    return now;
  }

  private moveClock(seconds: bigint): bigint {
    const clock = this.svm.getClock();
    clock.unixTimestamp += seconds;
    this.svm.setClock(clock);
    return clock.unixTimestamp;
  }

  /** One slot passes, with a new blockhash. */
  private advanceSlot(by = 1n): void {
    const slot = this.svm.getClock().slot + by;
    this.svm.warpToSlot(slot);
    this.newBlockhash();
    // A slot alone is no reason to write the whole state (the node advances one every 400 ms).
    this.journal?.record({ slot: slot.toString() });
    if ((this.journal?.lines ?? 0) >= JOURNAL_LINES) this.changed();
  }

  async passSlots(count: number): Promise<bigint> {
    if (!Number.isSafeInteger(count) || count < 1) throw new RangeError('slots pass one or more at a time');
    this.advanceSlot(BigInt(count));
    return this.svm.getClock().slot;
  }

  async readAccount(address: string): Promise<ChainAccount | undefined> {
    const account = this.svm.getAccount(address as Address);
    if (!account.exists) return undefined;
    return { owner: account.programAddress, lamports: account.lamports, data: account.data as Uint8Array };
  }

  /**
   * Writes an account that no transaction could (its owner program is not deployed here), as a
   * validator's genesis `--account` does; only when it does not exist yet, rent-exempt, paid by no
   * one. Returns whether it wrote. Nothing can change the account afterwards: only its owner could.
   */
  async preloadAccount(address: string, account: { owner: string; data: Uint8Array }): Promise<boolean> {
    if (this.svm.getAccount(address as Address).exists) return false;
    this.writeAccount(address, account.owner, account.data);
    this.changed({
      preload: [address, account.owner, Buffer.from(account.data).toString('base64')],
    });
    return true;
  }

  private writeAccount(address: string, owner: string, data: Uint8Array): void {
    this.svm.setAccount({
      address: address as Address,
      programAddress: owner as Address,
      executable: false,
      lamports: lamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      data,
      space: BigInt(data.length),
    });
  }

  /** Applies what the journal holds after the snapshot, in order, as it first happened. */
  private replay(entries: readonly JournalEntry[]): void {
    // Transactions signed on a blockhash since expired still ran then: `run` does not check blockhashes.
    for (const entry of entries) {
      if ('tx' in entry) {
        const transaction = wireDecoder.decode(Buffer.from(entry.tx, 'base64')) as Transaction;
        const first = Object.values(transaction.signatures)[0];
        this.run(transaction, first ? bs58.encode(first) : '');
      } else if ('airdrop' in entry) this.runAirdrop(entry.airdrop[0], BigInt(entry.airdrop[1]));
      else if ('warp' in entry) this.moveClock(BigInt(entry.warp));
      else if ('slot' in entry) this.svm.warpToSlot(BigInt(entry.slot));
      else this.writeAccount(entry.preload[0], entry.preload[1], Buffer.from(entry.preload[2], 'base64'));
    }
  }

  /** Journals a change (none: only the snapshot is due) and writes the whole state within SNAPSHOT_EVERY_MS. */
  private changed(entry?: JournalEntry): void {
    if (!this.journal || this.closed) return;
    if (entry) this.journal.record(entry);
    this.snapshotDue ??= setTimeout(() => this.save(), SNAPSHOT_EVERY_MS).unref();
  }

  private save(): void {
    clearTimeout(this.snapshotDue);
    this.snapshotDue = undefined;
    const file = this.options.stateFile;
    if (!file || !this.journal || this.closed) return;
    this.journal.snapshot(this.svm.toBytes());
    if (this.unsaved.length > 0) {
      appendFileSync(`${file}.ledger`, `${this.unsaved.join('\n')}\n`);
      this.unsaved = [];
    }
    this.history?.save();
  }

  async close(): Promise<void> {
    clearInterval(this.slots);
    this.save();
    this.closed = true;
    this.journal?.close();
  }

  /** What a JSON-RPC node serving this chain needs (rpc-node.ts). */
  node(): ChainNodeBackend {
    return {
      latestBlockhash: () => this.latest,
      isBlockhashValid: (blockhash) => {
        let bytes: Uint8Array;
        try {
          bytes = bs58.decode(blockhash);
        } catch {
          return false;
        }
        return this.stillValid(Buffer.from(bytes).toString('latin1'));
      },
      slot: () => this.svm.getClock().slot,
      advanceSlot: () => this.advanceSlot(),
      account: (address) => {
        const account = this.svm.getAccount(address as Address);
        return account.exists ? account : null;
      },
      send: async (transaction) => {
        const first = Object.values(transaction.signatures)[0];
        if (!first) throw new ChainFailure('MissingSignatureForFee');
        await this.send({
          transaction,
          signature: bs58.encode(first),
          wire: new Uint8Array(),
          lastValidBlockHeight: 0n,
        });
      },
      status: (signature) => this.status(signature),
      airdrop: async (address, amount) => this.airdrop(address, amount),
      simulate: (transaction, options) => this.simulate(transaction, options),
      prioritizationFees: (accounts) => this.fees.recent(accounts, this.svm.getClock().slot),
      rentExemption: (space) => this.svm.minimumBalanceForRentExemption(space),
      genesisHash: () => this.genesisHash,
      epochInfo: () => ({
        ...epochOf(this.svm.getClock().slot, this.svm.getEpochSchedule()),
        transactionCount: this.ledger.size,
      }),
      warp: (seconds) => this.warp(seconds),
      passSlots: (count) => this.passSlots(count),
      ...(this.history && { history: this.history }),
    };
  }
}

interface NativeAccount {
  lamports(): bigint;
  owner(): Uint8Array;
  data(): Uint8Array;
}

interface NativeSvm {
  getAccount?(key: Uint8Array): NativeAccount | null;
  getBalance?(key: Uint8Array): bigint | null;
}

/**
 * Reads accounts for the history by their key's bytes. LiteSVM's native binding takes the bytes as
 * they are; its wrapper's getAccount first turns base58 text into bytes with @solana/kit's codec,
 * about ten times the cost (measured: 3 µs against 40 per account), and the history reads every
 * account of every transaction. The wrapper's is the fallback should the binding change.
 */
function accountReader(svm: LiteSVM): AccountReader {
  const binding = (svm as unknown as { inner?: NativeSvm }).inner;
  if (typeof binding?.getAccount === 'function' && typeof binding.getBalance === 'function') {
    const native = binding as Required<NativeSvm>;
    return {
      account: (key) => {
        const a = native.getAccount(key);
        return a ? { lamports: a.lamports(), owner: a.owner(), data: a.data() } : undefined;
      },
      lamports: (key) => native.getBalance(key) ?? 0n,
    };
  }
  const account = (address: string) => {
    const a = svm.getAccount(address as Address);
    return a.exists
      ? { lamports: a.lamports, owner: bs58.decode(a.programAddress), data: a.data as Uint8Array }
      : undefined;
  };
  return {
    account: (_key, address) => account(address),
    lamports: (_key, address) => account(address)?.lamports ?? 0n,
  };
}

/**
 * The epoch of `slot`, its index in it and the epoch's length, as Solana's EpochSchedule computes them:
 * while warming up, epochs start at 32 slots and double; from `firstNormalSlot` on, each is as long.
 */
export function epochOf(
  slot: bigint,
  schedule: { slotsPerEpoch: bigint; warmup: boolean; firstNormalEpoch: bigint; firstNormalSlot: bigint },
): { epoch: bigint; slotIndex: bigint; slotsInEpoch: bigint } {
  const MINIMUM = 32n;
  if (schedule.warmup && slot < schedule.firstNormalSlot) {
    let slotsInEpoch = MINIMUM;
    let epoch = 0n;
    while (slot >= 2n * slotsInEpoch - MINIMUM) {
      slotsInEpoch *= 2n;
      epoch += 1n;
    }
    return { epoch, slotIndex: slot - (slotsInEpoch - MINIMUM), slotsInEpoch };
  }
  const normal = slot - schedule.firstNormalSlot;
  return {
    epoch: schedule.firstNormalEpoch + normal / schedule.slotsPerEpoch,
    slotIndex: normal % schedule.slotsPerEpoch,
    slotsInEpoch: schedule.slotsPerEpoch,
  };
}

/** A readable error: "AlreadyProcessed", or "instruction 2: custom program error: 0x1". */
function describe(err: unknown): string {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? `TransactionError ${err}`;
  const text = String(err);
  const custom = /Custom\((\d+)\)/.exec(text);
  const index = /InstructionError\((\d+)/.exec(text)?.[1] ?? (err as { index?: number }).index;
  if (custom) return `instruction ${index}: custom program error: 0x${Number(custom[1]).toString(16)}`;
  return text;
}
