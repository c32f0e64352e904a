/**
 * Incoming payments, read from a chain's transaction history: the port the payment watcher uses
 * (PaymentSource), what a payment is, and how one is found, the same for every adapter.
 *
 * A payment to `owner` is a landed transaction that raised the token balance `owner` holds in one of
 * the watched mints and that `owner` did not sign: its own swaps, withdrawals and redemptions raise
 * its balances too, and are not payments. The balances are the transaction's own record of them
 * (`preTokenBalances` / `postTokenBalances`, by owner), so a payment made through any program is
 * seen. It comes from the owner whose balance of that mint fell most in the transaction; when none
 * fell (tokens minted), from the mint authority of a MintTo in it, or else the fee payer.
 *
 * Only the owner's associated token accounts are watched (the accounts balances are read from).
 */
import { amountText, fromBaseUnits } from '../money';
import { ata } from './transactions';
import { TOKEN_PROGRAMS } from './token-programs';

/** Where the watcher stopped on each watched account: per mint, the newest signature listed. */
export type PaymentCursor = Readonly<Record<string, string>>;

export interface IncomingPayment {
  signature: string;
  slot: bigint;
  mint: string;
  /** Base units. */
  amount: bigint;
  /** The amount in the token's units, exact decimal text. */
  amountText: string;
  from: string;
  /** The transaction's signers, fee payer first. */
  signers: readonly string[];
}

export interface IncomingPayments {
  /** Oldest first. */
  payments: IncomingPayment[];
  /** Pass it back to get only what landed since. */
  cursor: PaymentCursor;
}

export interface PaymentQuery {
  /** Where the last answer stopped; absent: a first look (or a restart). */
  after?: PaymentCursor;
  /** Without a cursor, how many of each account's newest transactions are read. */
  window?: number;
  /** Transactions known not to be payments (the service's own): not even read. */
  skip?(signature: string): boolean;
}

export interface PaymentSource {
  /**
   * Payments to `owner` in `mints` since `query.after`; without a cursor, those among the newest
   * `window` transactions of each watched account. Asking again with an older cursor answers the
   * same payments again: the caller records each once.
   */
  incomingPayments(owner: string, mints: readonly string[], query?: PaymentQuery): Promise<IncomingPayments>;
  /**
   * Calls `touched` with the signature of each transaction that touches the token account `address`
   * from now on, as the chain tells it (a subscription; a source without one has no such method).
   * A notification can be lost (a socket that reconnects): callers keep a slower sweep of their own.
   * Returns a way to stop.
   */
  watchAccount?(address: string, touched: (signature: string) => void): () => void;
}

/** How many transactions of an account a first look reads (getSignaturesForAddress's largest page). */
export const DEFAULT_PAYMENT_WINDOW = 1_000;

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  /** The token account's owner (wallet). */
  owner: string;
  amount: bigint;
  decimals: number;
}

/** What a landed transaction says about itself, in the terms of Solana's getTransaction. */
export interface TransactionView {
  signature: string;
  /** Every signature, in order (the first is `signature`): a co-signed transaction is found by its other signers'. */
  signatures: readonly string[];
  slot: bigint;
  failed: boolean;
  /** Static keys, then those loaded from lookup tables (writable, then read-only). */
  accountKeys: readonly string[];
  numRequiredSignatures: number;
  instructions: readonly { programIdIndex: number; accounts: readonly number[]; data: Uint8Array }[];
  preTokenBalances: readonly TokenBalance[];
  postTokenBalances: readonly TokenBalance[];
}

/** A chain's history of transactions by account, as getSignaturesForAddress and getTransaction give it. */
export interface TransactionHistoryReader {
  /** Newest first, after `before` (exclusive) and down to `until` (exclusive). */
  signaturesFor(
    address: string,
    options: { before?: string; until?: string; limit: number },
  ): Promise<{ signature: string; failed: boolean }[]>;
  /** Undefined while the node does not have it (yet). */
  transaction(signature: string): Promise<TransactionView | undefined>;
}

/** SPL Token instruction tags: MintTo and MintToChecked (accounts: mint, destination, authority). */
const MINT_TO = new Set([7, 14]);

/** The payments to `owner` in one transaction (one per mint whose balance rose), or none. */
export function paymentsIn(
  tx: TransactionView,
  owner: string,
  mints: ReadonlySet<string>,
): IncomingPayment[] {
  const signers = tx.accountKeys.slice(0, tx.numRequiredSignatures);
  if (tx.failed || signers.includes(owner)) return [];
  const held = (balances: readonly TokenBalance[], mint: string, who: string) =>
    balances.reduce((sum, b) => (b.mint === mint && b.owner === who ? sum + b.amount : sum), 0n);
  const out: IncomingPayment[] = [];
  for (const mint of new Set(tx.postTokenBalances.map((b) => b.mint))) {
    if (!mints.has(mint)) continue;
    const amount = held(tx.postTokenBalances, mint, owner) - held(tx.preTokenBalances, mint, owner);
    if (amount <= 0n) continue;
    const decimals = tx.postTokenBalances.find((b) => b.mint === mint)!.decimals;
    out.push({
      signature: tx.signature,
      slot: tx.slot,
      mint,
      amount,
      amountText: amountText(fromBaseUnits(amount, decimals)),
      from: payer(tx, mint, held),
      signers,
    });
  }
  return out;
}

function payer(
  tx: TransactionView,
  mint: string,
  held: (balances: readonly TokenBalance[], mint: string, who: string) => bigint,
): string {
  let from: string | undefined;
  let most = 0n;
  const owners = new Set(tx.preTokenBalances.filter((b) => b.mint === mint).map((b) => b.owner));
  for (const who of owners) {
    const fell = held(tx.preTokenBalances, mint, who) - held(tx.postTokenBalances, mint, who);
    if (fell > most) [from, most] = [who, fell];
  }
  if (from) return from;
  for (const ix of tx.instructions) {
    const program = tx.accountKeys[ix.programIdIndex];
    if (program && TOKEN_PROGRAMS.has(program) && MINT_TO.has(ix.data[0] ?? -1)) {
      const [m, , authority] = ix.accounts.map((i) => tx.accountKeys[i]);
      if (m === mint && authority) return authority;
    }
  }
  return tx.accountKeys[0]!;
}

/**
 * PaymentSource over a transaction history: lists each watched account's signatures since the
 * cursor (pages of at most 1,000, and `window` in all), reads each transaction once (but failed and
 * skipped ones), and finds the payments in them. A transaction the node does not answer yet keeps the cursor where it was, so the
 * next call lists it again.
 */
export async function readIncomingPayments(
  history: TransactionHistoryReader,
  owner: string,
  mints: readonly string[],
  query: PaymentQuery = {},
): Promise<IncomingPayments> {
  const { after = {}, window = DEFAULT_PAYMENT_WINDOW, skip = () => false } = query;
  const cursor: Record<string, string> = { ...after };
  const listed: string[] = []; // newest first, every account's in turn
  for (const mint of mints) {
    const account = await ata(owner, mint);
    const until = after[mint];
    const seen: { signature: string; failed: boolean }[] = [];
    while (seen.length < window) {
      const limit = Math.min(1_000, window - seen.length);
      const before = seen.at(-1)?.signature;
      const page = await history.signaturesFor(account, {
        limit,
        ...(until && { until }),
        ...(before && { before }),
      });
      seen.push(...page);
      if (page.length < limit) break;
    }
    if (seen[0]) cursor[mint] = seen[0].signature;
    for (const s of seen) if (!s.failed && !skip(s.signature)) listed.push(s.signature);
  }
  const wanted = new Set(mints);
  const payments: IncomingPayment[] = [];
  let complete = true;
  const unique = [...new Set(listed)];
  for (const signature of unique) {
    const tx = await history.transaction(signature);
    if (tx) payments.push(...paymentsIn(tx, owner, wanted));
    else complete = false;
  }
  // Oldest first: by slot, then in the order the accounts listed them (newest first, so reversed).
  const order = new Map(unique.map((s, i) => [s, i]));
  payments.sort((a, b) =>
    a.slot === b.slot ? order.get(b.signature)! - order.get(a.signature)! : a.slot < b.slot ? -1 : 1,
  );
  return { payments, cursor: complete ? cursor : { ...after } };
}
