/**
 * The local chain's transaction history: what Solana's getSignaturesForAddress and getTransaction
 * answer from. For each transaction that ran (landed or failed), its signatures, message, slot, time,
 * error, and the lamports and token balances of its accounts before and after; and per account, the
 * transactions that named it. The newest `keep` transactions are kept, older ones are forgotten (a
 * node without long-term storage forgets them too).
 *
 * It is kept across a restart: each transaction is one JSON line appended to a file beside the chain
 * state (`<state file>.history`), written with the state; at start the file is read back, and
 * rewritten with the kept transactions once it holds twice as many. So a payment that landed just
 * before the chain node stopped is still found after it starts again. Without a state file it lives
 * in memory only.
 *
 * Balances are read before and after each transaction (every key before; only the writable ones
 * after, since the runtime writes no other), through the raw account reader the chain gives.
 */
import bs58 from 'bs58';
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { TokenBalance, TransactionView } from './payments';
import { addressText, isWritableIndex, readMessage, type WireMessage } from './message';
import { TOKEN_PROGRAMS } from './token-programs';
import { feeOf } from './compute-budget';

export interface RawAccount {
  lamports: bigint;
  /** The owner program's 32 bytes. */
  owner: Uint8Array;
  data: Uint8Array;
}

/** Reads accounts by their key's bytes (and base58 text): whole, or only their lamports (0 when absent). */
export interface AccountReader {
  account(key: Uint8Array, address: string): RawAccount | undefined;
  lamports(key: Uint8Array, address: string): bigint;
}

/** A transaction error in Solana's JSON form: a name, or `{InstructionError: [index, detail]}`. */
export type TransactionErrorJson = string | { InstructionError: [number, string | { Custom: number }] };

export interface LandedTransaction {
  signature: string;
  /** Every signature, 64 bytes each in order (the first is `signature`): see `signaturesOf`. */
  signatureBytes: Uint8Array;
  message: Uint8Array;
  slot: bigint;
  /** The chain's clock (unix seconds) when it ran. */
  blockTime: bigint;
  err: TransactionErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
}

/** What was read before a transaction ran, to complete once it has. */
export interface Captured {
  message: WireMessage;
  bytes: Uint8Array;
  preBalances: bigint[];
  preTokenBalances: TokenBalance[];
}

const TOKEN_PROGRAM_BYTES = [...TOKEN_PROGRAMS].map((p) => bs58.decode(p));
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

export class TransactionHistory {
  private readonly bySeq = new Map<number, LandedTransaction>();
  private readonly seqOf = new Map<string, number>();
  private readonly byAccount = new Map<string, number[]>();
  private readonly decimals = new Map<string, number>();
  private first = 0;
  private next = 0;
  private forgotten = 0;
  private unsaved: string[] = [];
  private linesInFile = 0;
  /** The file ends in a line cut short (a crash mid-write): the next write starts a new line. */
  private cut = false;

  constructor(
    private readonly read: AccountReader,
    private readonly keep: number,
    private readonly file?: string,
  ) {
    if (!file || !existsSync(file)) return;
    const text = readFileSync(file, 'utf8');
    this.cut = text.length > 0 && !text.endsWith('\n');
    for (const line of text.split('\n')) {
      if (!line) continue;
      this.linesInFile += 1;
      try {
        this.add(fromLine(line));
      } catch {
        // a line cut short by a crash: skipped, the ones after it are read
      }
    }
  }

  /** Reads what the transaction's accounts hold before it runs (`bytes`: its message, kept as it is). */
  capture(bytes: Uint8Array): Captured {
    const message = readMessage(bytes);
    // A key only invoked (a program) is no token account: its lamports will do, and its data (the
    // program itself, 100 kB for some) is not copied.
    const named = new Set(message.instructions.flatMap((ix) => ix.accounts));
    const accounts = message.keyBytes.map((k, i) =>
      named.has(i) || isWritableIndex(message, i) ? this.read.account(k, message.accountKeys[i]!) : undefined,
    );
    return {
      message,
      bytes,
      preBalances: accounts.map(
        (a, i) => a?.lamports ?? this.read.lamports(message.keyBytes[i]!, message.accountKeys[i]!),
      ),
      preTokenBalances: this.tokenBalances(accounts),
    };
  }

  /** Records a transaction that ran, reading its writable accounts again. */
  landed(
    captured: Captured,
    outcome: {
      signature: string;
      signatures: readonly Uint8Array[];
      slot: bigint;
      blockTime: bigint;
      error?: string;
    },
  ): void {
    const { message } = captured;
    const accounts = message.keyBytes.map((k, i) =>
      isWritableIndex(message, i) ? this.read.account(k, message.accountKeys[i]!) : undefined,
    );
    const postBalances = accounts.map((a, i) =>
      a ? a.lamports : isWritableIndex(message, i) ? 0n : captured.preBalances[i]!,
    );
    const unchanged = captured.preTokenBalances.filter((b) => !isWritableIndex(message, b.accountIndex));
    const postTokenBalances = [...unchanged, ...this.tokenBalances(accounts)].sort(
      (a, b) => a.accountIndex - b.accountIndex,
    );
    const tx: LandedTransaction = {
      signature: outcome.signature,
      signatureBytes: Buffer.concat(outcome.signatures),
      message: captured.bytes,
      slot: outcome.slot,
      blockTime: outcome.blockTime,
      err: outcome.error === undefined ? null : errorJson(outcome.error),
      fee: feeOf(message).lamports,
      preBalances: captured.preBalances,
      postBalances,
      preTokenBalances: captured.preTokenBalances,
      postTokenBalances,
    };
    this.add(tx, message);
    if (this.file) this.unsaved.push(toLine(tx));
  }

  /** Newest first, after `before` and down to `until` (both exclusive), as getSignaturesForAddress. */
  signaturesFor(
    address: string,
    options: { before?: string; until?: string; limit: number },
  ): LandedTransaction[] {
    const list = this.byAccount.get(address) ?? [];
    let i = list.length - 1;
    if (options.before !== undefined) {
      const before = this.seqOf.get(options.before);
      if (before === undefined) return [];
      while (i >= 0 && list[i]! >= before) i--;
    }
    const until = options.until === undefined ? undefined : this.seqOf.get(options.until);
    const out: LandedTransaction[] = [];
    for (; i >= 0 && out.length < options.limit; i--) {
      const seq = list[i]!;
      if (seq < this.first || (until !== undefined && seq <= until)) break;
      out.push(this.bySeq.get(seq)!);
    }
    return out;
  }

  get(signature: string): LandedTransaction | undefined {
    const seq = this.seqOf.get(signature);
    return seq === undefined ? undefined : this.bySeq.get(seq);
  }

  /** Writes what landed since the last call (or the whole kept history, when the file has grown to twice that). */
  save(): void {
    if (!this.file || this.unsaved.length === 0) return;
    if (this.linesInFile + this.unsaved.length > 2 * this.keep) {
      const lines = [...this.bySeq.values()].map(toLine);
      writeFileSync(`${this.file}.tmp`, lines.length > 0 ? `${lines.join('\n')}\n` : '');
      renameSync(`${this.file}.tmp`, this.file);
      this.linesInFile = lines.length;
      this.cut = false;
    } else {
      appendFileSync(this.file, `${this.cut ? '\n' : ''}${this.unsaved.join('\n')}\n`);
      this.linesInFile += this.unsaved.length;
      this.cut = false;
    }
    this.unsaved = [];
  }

  private add(tx: LandedTransaction, message = readMessage(tx.message)): void {
    if (this.seqOf.has(tx.signature)) return;
    const seq = this.next++;
    this.bySeq.set(seq, tx);
    this.seqOf.set(tx.signature, seq);
    for (const key of new Set(message.accountKeys)) {
      const list = this.byAccount.get(key);
      if (list) list.push(seq);
      else this.byAccount.set(key, [seq]);
    }
    while (this.bySeq.size > this.keep) this.forget();
  }

  private forget(): void {
    const old = this.bySeq.get(this.first);
    this.bySeq.delete(this.first);
    if (old) this.seqOf.delete(old.signature);
    this.first += 1;
    // Now and then, drop the forgotten transactions from the per-account lists too.
    if (++this.forgotten < this.keep) return;
    this.forgotten = 0;
    for (const [key, list] of this.byAccount) {
      const kept = list.filter((seq) => seq >= this.first);
      if (kept.length === 0) this.byAccount.delete(key);
      else this.byAccount.set(key, kept);
    }
  }

  /** The initialized SPL token accounts among `accounts` (by index), with their mint's decimals. */
  private tokenBalances(accounts: (RawAccount | undefined)[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    accounts.forEach((a, accountIndex) => {
      if (!a || a.data.length < 165 || !TOKEN_PROGRAM_BYTES.some((p) => sameBytes(p, a.owner))) return;
      // Token-2022 accounts may be longer: then byte 165 says what they are (2: a token account).
      if (a.data.length > 165 && a.data[165] !== 2) return;
      if (a.data[108] === 0) return; // uninitialized
      const mintBytes = a.data.subarray(0, 32);
      const mint = addressText(mintBytes);
      const decimals = this.decimalsOf(mint, mintBytes);
      if (decimals === undefined) return;
      out.push({
        accountIndex,
        mint,
        owner: addressText(a.data.subarray(32, 64)),
        amount: Buffer.from(a.data.buffer, a.data.byteOffset + 64, 8).readBigUInt64LE(0),
        decimals,
      });
    });
    return out;
  }

  private decimalsOf(mint: string, bytes: Uint8Array): number | undefined {
    let d = this.decimals.get(mint);
    if (d === undefined) {
      const account = this.read.account(bytes, mint);
      if (!account || account.data.length < 45) return undefined;
      d = account.data[44]!;
      this.decimals.set(mint, d);
    }
    return d;
  }
}

/** A transaction's signatures in base58 (encoded when asked: 20 µs each). */
export function signaturesOf(tx: LandedTransaction): string[] {
  const out: string[] = [];
  for (let at = 0; at < tx.signatureBytes.length; at += 64)
    out.push(bs58.encode(tx.signatureBytes.subarray(at, at + 64)));
  return out;
}

/** A landed transaction as the payment reader sees it. */
export function transactionView(tx: LandedTransaction): TransactionView {
  const message = readMessage(tx.message);
  return {
    signature: tx.signature,
    signatures: signaturesOf(tx),
    slot: tx.slot,
    failed: tx.err !== null,
    accountKeys: message.accountKeys,
    numRequiredSignatures: message.header.numRequiredSignatures,
    instructions: message.instructions,
    preTokenBalances: tx.preTokenBalances,
    postTokenBalances: tx.postTokenBalances,
  };
}

/**
 * Solana's JSON form of the error text the chain reports (litesvm.ts `describe`): "instruction 2:
 * custom program error: 0x1", or LiteSVM's own "TransactionErrorInstructionError { index: 2, error:
 * InstructionErrorCustom { code: 1 } }", is `{InstructionError: [2, {Custom: 1}]}`; a name stays a name.
 */
export function errorJson(text: string): TransactionErrorJson {
  const hex = /^instruction (\d+): custom program error: 0x([0-9a-f]+)$/.exec(text);
  if (hex) return { InstructionError: [Number(hex[1]), { Custom: parseInt(hex[2]!, 16) }] };
  const index = /InstructionError\D*?(\d+)/.exec(text);
  if (index) {
    const custom = /Custom\D*?(\d+)/.exec(text);
    const detail = /error:\s*(?:InstructionError)?(\w+)/.exec(text)?.[1] ?? 'GenericError';
    return { InstructionError: [Number(index[1]), custom ? { Custom: Number(custom[1]) } : detail] };
  }
  return text;
}

type Line = {
  g: string;
  m: string;
  l: string;
  t: string;
  e: TransactionErrorJson | null;
  f: string;
  b: string[];
  a: string[];
  p: [number, string, string, string, number][];
  q: [number, string, string, string, number][];
};

const balancesOut = (list: TokenBalance[]): Line['p'] =>
  list.map((b) => [b.accountIndex, b.mint, b.owner, String(b.amount), b.decimals]);
const balancesIn = (list: Line['p']): TokenBalance[] =>
  list.map(([accountIndex, mint, owner, amount, decimals]) => ({
    accountIndex,
    mint,
    owner,
    amount: BigInt(amount),
    decimals,
  }));

function toLine(tx: LandedTransaction): string {
  const line: Line = {
    g: Buffer.from(tx.signatureBytes).toString('base64'),
    m: Buffer.from(tx.message).toString('base64'),
    l: String(tx.slot),
    t: String(tx.blockTime),
    e: tx.err,
    f: String(tx.fee),
    b: tx.preBalances.map(String),
    a: tx.postBalances.map(String),
    p: balancesOut(tx.preTokenBalances),
    q: balancesOut(tx.postTokenBalances),
  };
  return JSON.stringify(line);
}

function fromLine(text: string): LandedTransaction {
  const line = JSON.parse(text) as Line;
  return {
    signature: bs58.encode(Buffer.from(line.g, 'base64').subarray(0, 64)),
    signatureBytes: new Uint8Array(Buffer.from(line.g, 'base64')),
    message: new Uint8Array(Buffer.from(line.m, 'base64')),
    slot: BigInt(line.l),
    blockTime: BigInt(line.t),
    err: line.e,
    fee: BigInt(line.f),
    preBalances: line.b.map(BigInt),
    postBalances: line.a.map(BigInt),
    preTokenBalances: balancesIn(line.p),
    postTokenBalances: balancesIn(line.q),
  };
}
