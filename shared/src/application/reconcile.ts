/**
 * Reconciliation of the log with the chain, for one group (docs/audit.md, "Reconciliation").
 *
 * `reconcile` is the comparison, pure over plain data: for each agent, its events (its own stream and
 * its payments stream), the transactions the chain lists for its token accounts (with their token
 * balances before and after), and its balances on the chain now. It reports:
 *
 * - a confirmed intent whose signature the chain does not have, or has as failed;
 * - a confirmed intent whose transaction moved other amounts than its events say: the agent's
 *   balance of the intent's mint fell by `amount`; for a transfer the counterparty's rose by
 *   `net_amount` and the treasury's by `protocol_fee` (an x402 payment has two transactions: the
 *   payment, the agent's balance down and the counterparty's up by `net_amount`, and the fee's, the
 *   agent's down and the treasury's up by `protocol_fee`); for a swap, deposit or withdrawal the agent's
 *   balance of `received_mint` rose by `received_amount`; and no other of the agent's balances moved.
 *   (The counterparty of a swap or a lending operation is a protocol address, the aggregator or the
 *   lending program, which the local markets' transactions do not name: their pools and vaults
 *   belong to keys of their own. So for those the check is both of the agent's sides.);
 * - tokens that left the agent's wallet in a transaction that no confirmed intent and no emergency
 *   withdrawal names (signed behind the service's back, or an intent the log says failed);
 * - each balance on the chain that differs from what the events imply: payments in (outsiders', and
 *   another agent's emergency withdrawal into it), confirmed intents out (and what they received
 *   back), transfers from the group's other agents, the emergency withdrawal.
 *
 * A window (`from`, `to`, epoch ms, both inclusive) limits the first three to intents confirmed in it
 * and to outflows that may have happened in it; the chain's own clock is not wall time on the local
 * chain, so an outflow is placed between the nearest transactions of the same agent the log names
 * (and kept when that span meets the window). Balances are always compared as they are now, against
 * the whole log.
 *
 * `reconcileGroup` reads those inputs through the ports (the log, the chain and its history).
 */
import type { TransactionView, TransactionHistoryReader } from '../chain/payments';
import { ata } from '../chain/transactions';
import { decodeEvent, streams, type DomainEvent, type IntentData } from '../domain/events';
import type { Token } from '../domain/tokens';
import { ServiceError } from '../errors';
import { amountFromText, amountText, fromBaseUnits, toBaseUnits } from '../money';
import type { Context } from './context';
import { ownedGroup } from './groups';

export interface ReconcileWindow {
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, inclusive. */
  to?: number;
}

export interface AgentRecord {
  agentId: string;
  /** The agent's stream, then its payments stream, each in order. */
  events: readonly DomainEvent[];
  /** The transactions the chain lists for the agent's token accounts, oldest first. */
  transactions: readonly TransactionView[];
  /** Its balances on the chain now, base units by mint. */
  balances: ReadonlyMap<string, bigint>;
}

export interface ReconcileInput {
  agents: readonly AgentRecord[];
  tokens: readonly Token[];
  /** The wallet that receives protocol fees. */
  treasury: string;
  window?: ReconcileWindow;
}

export type DiscrepancyKind =
  | 'intent_not_on_chain'
  | 'intent_failed_on_chain'
  | 'amount_mismatch'
  | 'unexpected_movement'
  | 'unexplained_outflow'
  | 'balance_mismatch';

/** One difference between the log and the chain. Amounts are exact decimal text in the mint's units. */
export interface Discrepancy {
  kind: DiscrepancyKind;
  agent_id: string;
  signature?: string;
  intent_id?: string;
  mint?: string;
  /** Whose balance: the agent, the counterparty or the treasury (amount_mismatch). */
  party?: string;
  /** What the log says (a change, or a balance). */
  expected?: string;
  /** What the chain says. */
  actual?: string;
  /** What left the wallet (unexplained_outflow). */
  amount?: string;
  /** actual - expected (balance_mismatch). */
  difference?: string;
  message: string;
}

/** The change of `owner`'s balance of `mint` in a transaction, base units (its token accounts summed). */
export function balanceChange(tx: TransactionView, owner: string, mint: string): bigint {
  const held = (list: TransactionView['preTokenBalances']) =>
    list.reduce((sum, b) => (b.mint === mint && b.owner === owner ? sum + b.amount : sum), 0n);
  return held(tx.postTokenBalances) - held(tx.preTokenBalances);
}

/** Every mint whose balance `owner` holds changed in the transaction, with the change. */
function changesOf(tx: TransactionView, owner: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const b of [...tx.preTokenBalances, ...tx.postTokenBalances])
    if (b.owner === owner && !out.has(b.mint)) {
      const change = balanceChange(tx, owner, b.mint);
      if (change !== 0n) out.set(b.mint, change);
    }
  return out;
}

interface Confirmed {
  intent: IntentData;
  signature: string;
  /** An x402 payment's protocol fee, in a transaction of its own (absent: not taken). */
  feeSignature?: string;
  receivedMint?: string;
  receivedAmount?: string;
  at: number;
}

/** What one agent's events say: confirmed intents, signatures the log names, implied balances. */
interface Ledger {
  confirmed: Confirmed[];
  /** Signatures of confirmed intents and emergency moves, with the log's time of each. */
  named: Map<string, number>;
  /** Signatures of submitted intents with no confirmation: the intent and whether it failed. */
  unconfirmed: Map<string, { intentId: string; failed: boolean; at: number }>;
  /** Implied balance changes by mint (decimal text summed as base units later). */
  implied: { mint: string; amount: string; sign: 1n | -1n }[];
}

function ledgerOf(record: AgentRecord): Ledger {
  const accepted = new Map<string, IntentData>();
  const submitted = new Map<string, { signature: string; at: number }>();
  const failed = new Set<string>();
  const ledger: Ledger = { confirmed: [], named: new Map(), unconfirmed: new Map(), implied: [] };
  const add = (mint: string, amount: string, sign: 1n | -1n) => ledger.implied.push({ mint, amount, sign });
  for (const event of record.events) {
    switch (event.type) {
      case 'intent.accepted':
        accepted.set(event.data.intent_id, event.data);
        break;
      case 'intent.submitting':
        submitted.set(event.data.intent_id, { signature: event.data.signature, at: event.data.at });
        break;
      case 'intent.failed':
        failed.add(event.data.intent_id);
        break;
      case 'intent.confirmed': {
        const intent = accepted.get(event.data.intent_id);
        if (!intent) break;
        const feeSignature = event.data.fee_tx_sig;
        ledger.confirmed.push({
          intent,
          signature: event.data.tx_sig,
          ...(feeSignature && { feeSignature }),
          at: event.data.at,
          ...(event.data.received_mint && { receivedMint: event.data.received_mint }),
          ...(event.data.received_amount && { receivedAmount: event.data.received_amount }),
        });
        ledger.named.set(event.data.tx_sig, event.data.at);
        if (feeSignature) ledger.named.set(feeSignature, event.data.at);
        // An x402 payment whose fee was not taken paid its price alone.
        const x402 = intent.action === 'transfer' && intent.x402 !== undefined;
        add(
          intent.mint,
          x402 && !feeSignature ? (intent as { net_amount: string }).net_amount : intent.amount,
          -1n,
        );
        if (event.data.received_mint && event.data.received_amount)
          add(event.data.received_mint, event.data.received_amount, 1n);
        break;
      }
      case 'payment.received':
        if (event.data.agent_id === record.agentId) {
          add(event.data.mint, event.data.amount, 1n);
          ledger.named.set(event.data.tx_signature, event.data.at);
        }
        break;
      case 'agent.emergency_withdraw':
        for (const r of event.data.redeemed) {
          add(r.receipt_mint, r.receipt_amount, -1n);
          add(r.mint, r.amount, 1n);
          ledger.named.set(r.tx_sig, event.data.at);
        }
        for (const m of event.data.moved) {
          add(m.mint, m.amount, -1n);
          ledger.named.set(m.tx_sig, event.data.at);
        }
        break;
      default:
        break;
    }
  }
  const confirmedIds = new Set(ledger.confirmed.map((c) => c.intent.intent_id));
  for (const [intentId, { signature, at }] of submitted)
    if (!confirmedIds.has(intentId))
      ledger.unconfirmed.set(signature, { intentId, failed: failed.has(intentId), at });
  return ledger;
}

/** For each position, the nearest known time strictly before it and strictly after it. */
function neighbourTimes(times: readonly (number | undefined)[]) {
  const before: (number | undefined)[] = [];
  const after: (number | undefined)[] = new Array<number | undefined>(times.length);
  let last: number | undefined;
  times.forEach((t, i) => {
    before[i] = last;
    if (t !== undefined) last = t;
  });
  last = undefined;
  for (let i = times.length - 1; i >= 0; i--) {
    after[i] = last;
    if (times[i] !== undefined) last = times[i];
  }
  return { before, after };
}

const inWindow = (at: number, w: ReconcileWindow) =>
  (w.from === undefined || at >= w.from) && (w.to === undefined || at <= w.to);

/** Compares the log with the chain for a group's agents: every discrepancy, by agent, in order. */
export function reconcile(input: ReconcileInput): Discrepancy[] {
  const window = input.window ?? {};
  const decimals = new Map(input.tokens.map((t) => [t.mint, t.decimals]));
  const out: Discrepancy[] = [];
  const ledgers = new Map(input.agents.map((a) => [a.agentId, ledgerOf(a)]));
  const decimalsOf = (mint: string, tx?: TransactionView) =>
    decimals.get(mint) ??
    tx?.postTokenBalances.find((b) => b.mint === mint)?.decimals ??
    tx?.preTokenBalances.find((b) => b.mint === mint)?.decimals;
  const units = (text: string, mint: string, tx?: TransactionView): bigint | undefined => {
    const d = decimalsOf(mint, tx);
    return d === undefined ? undefined : toBaseUnits(amountFromText(text), d);
  };
  const text = (base: bigint, mint: string, tx?: TransactionView) =>
    amountText(fromBaseUnits(base, decimalsOf(mint, tx) ?? 0));

  // Transfers between the group's agents: the recipient's balance rises by the net amount.
  const credits = new Map<string, { mint: string; amount: string; sign: 1n }[]>();
  for (const ledger of ledgers.values())
    for (const c of ledger.confirmed)
      if (c.intent.action === 'transfer' && ledgers.has(c.intent.counterparty)) {
        const list = credits.get(c.intent.counterparty) ?? [];
        list.push({ mint: c.intent.mint, amount: c.intent.net_amount, sign: 1n });
        credits.set(c.intent.counterparty, list);
      }

  for (const record of input.agents) {
    const agent = record.agentId;
    const ledger = ledgers.get(agent)!;
    const bySignature = new Map(record.transactions.map((t) => [t.signature, t]));

    // 1. Every confirmed intent is on the chain with exactly its amounts, fee, mints and counterparty.
    for (const c of ledger.confirmed) {
      if (!inWindow(c.at, window)) continue;
      const { intent, signature } = c;
      const base = { agent_id: agent, signature, intent_id: intent.intent_id };
      const tx = bySignature.get(signature);
      if (!tx) {
        out.push({
          ...base,
          kind: 'intent_not_on_chain',
          message: `intent ${intent.intent_id} (${intent.action}) is confirmed, but the chain lists no transaction ${signature} for the agent's token accounts`,
        });
        continue;
      }
      if (tx.failed) {
        out.push({
          ...base,
          kind: 'intent_failed_on_chain',
          message: `intent ${intent.intent_id} (${intent.action}) is confirmed, but its transaction ${signature} failed on the chain`,
        });
        continue;
      }
      const expect = (
        party: string,
        who: string,
        mint: string,
        amount: string,
        sign: 1n | -1n,
        on: TransactionView = tx,
      ) => {
        const wanted = units(amount, mint, on);
        if (wanted === undefined) return;
        const actual = balanceChange(on, party, mint);
        if (actual !== sign * wanted)
          out.push({
            ...base,
            ...(on !== tx && { signature: on.signature }),
            kind: 'amount_mismatch',
            mint,
            party: who,
            expected: text(sign * wanted, mint, on),
            actual: text(actual, mint, on),
            message: `intent ${intent.intent_id} (${intent.action}): ${who} ${party}'s balance of ${mint} changed by ${text(actual, mint, on)} on the chain, the log says ${text(sign * wanted, mint, on)}`,
          });
      };
      const named = new Set([intent.mint]);
      if (intent.action === 'transfer' && intent.x402) {
        // The payment, then the fee in a transaction of its own.
        expect(agent, 'agent', intent.mint, intent.net_amount, -1n);
        expect(intent.counterparty, 'counterparty', intent.mint, intent.net_amount, 1n);
        const fee = c.feeSignature === undefined ? undefined : bySignature.get(c.feeSignature);
        if (c.feeSignature !== undefined && (!fee || fee.failed))
          out.push({
            ...base,
            signature: c.feeSignature,
            kind: fee ? 'intent_failed_on_chain' : 'intent_not_on_chain',
            message: `intent ${intent.intent_id} (x402): its protocol fee's transaction ${c.feeSignature} is ${fee ? 'failed' : 'not listed'} on the chain`,
          });
        else if (fee) {
          expect(agent, 'agent', intent.mint, intent.protocol_fee, -1n, fee);
          expect(input.treasury, 'treasury', intent.mint, intent.protocol_fee, 1n, fee);
        }
      } else {
        expect(agent, 'agent', intent.mint, intent.amount, -1n);
        if (intent.action === 'transfer') {
          expect(intent.counterparty, 'counterparty', intent.mint, intent.net_amount, 1n);
          expect(input.treasury, 'treasury', intent.mint, intent.protocol_fee, 1n);
        } else {
          // A swap pays out the mint it asked for (params.to_mint), whatever the confirmation says.
          const receivedMint = intent.action === 'swap' ? intent.params.to_mint : c.receivedMint;
          if (receivedMint && c.receivedAmount) {
            expect(agent, 'agent', receivedMint, c.receivedAmount, 1n);
            named.add(receivedMint);
          }
        }
      }
      for (const [mint, change] of changesOf(tx, agent))
        if (!named.has(mint))
          out.push({
            ...base,
            kind: 'unexpected_movement',
            mint,
            party: 'agent',
            expected: '0',
            actual: text(change, mint, tx),
            message: `intent ${intent.intent_id} (${intent.action}): the agent's balance of ${mint}, which the intent does not name, changed by ${text(change, mint, tx)}`,
          });
    }

    // 2. Every movement out of the agent's wallet has its intent (or its emergency withdrawal).
    const { before, after } = neighbourTimes(
      record.transactions.map(
        (t) => ledger.named.get(t.signature) ?? ledger.unconfirmed.get(t.signature)?.at,
      ),
    );
    record.transactions.forEach((tx, i) => {
      if (tx.failed || ledger.named.has(tx.signature)) return;
      const meets =
        (window.from === undefined || after[i] === undefined || after[i]! >= window.from) &&
        (window.to === undefined || before[i] === undefined || before[i]! <= window.to);
      if (!meets) return;
      const pending = ledger.unconfirmed.get(tx.signature);
      for (const [mint, change] of changesOf(tx, agent)) {
        if (change >= 0n) continue;
        const amount = text(-change, mint, tx);
        out.push({
          kind: 'unexplained_outflow',
          agent_id: agent,
          signature: tx.signature,
          mint,
          amount,
          ...(pending && { intent_id: pending.intentId }),
          message: pending
            ? `${amount} of ${mint} left the agent's wallet in ${tx.signature}, the transaction of intent ${pending.intentId}, which the log records as ${pending.failed ? 'failed' : 'not confirmed (yet)'}`
            : `${amount} of ${mint} left the agent's wallet in ${tx.signature}, which no intent or emergency withdrawal in the log names`,
        });
      }
    });

    // 3. Each balance on the chain equals what the events imply.
    const implied = new Map<string, bigint>();
    for (const { mint, amount, sign } of [...ledger.implied, ...(credits.get(agent) ?? [])]) {
      const u = units(amount, mint);
      if (u !== undefined) implied.set(mint, (implied.get(mint) ?? 0n) + sign * u);
    }
    for (const mint of new Set([...implied.keys(), ...record.balances.keys()])) {
      if (!decimals.has(mint)) continue;
      const expected = implied.get(mint) ?? 0n;
      const actual = record.balances.get(mint) ?? 0n;
      if (expected === actual) continue;
      out.push({
        kind: 'balance_mismatch',
        agent_id: agent,
        mint,
        expected: text(expected, mint),
        actual: text(actual, mint),
        difference: text(actual - expected, mint),
        message: `the agent holds ${text(actual, mint)} of ${mint} on the chain; the log implies ${text(expected, mint)} (difference ${text(actual - expected, mint)})`,
      });
    }
  }
  return out;
}

/** Transactions of one account a reading takes at most (pages of 1,000). */
const MAX_PER_ACCOUNT = 100_000;

/**
 * The transactions the chain lists for `owner`'s token accounts of `mints`, oldest first (by slot,
 * then in the order the chain listed them). A transaction the node does not give is left out.
 */
export async function readAgentTransactions(
  history: TransactionHistoryReader,
  owner: string,
  mints: readonly string[],
): Promise<TransactionView[]> {
  const listed: string[] = []; // newest first, account by account
  for (const mint of mints) {
    const account = await ata(owner, mint);
    let before: string | undefined;
    for (let read = 0; read < MAX_PER_ACCOUNT; read += 1_000) {
      const page = await history.signaturesFor(account, { limit: 1_000, ...(before && { before }) });
      listed.push(...page.map((s) => s.signature));
      if (page.length < 1_000) break;
      before = page.at(-1)!.signature;
    }
  }
  const unique = [...new Set(listed)];
  const order = new Map(unique.map((s, i) => [s, i]));
  const txs: TransactionView[] = [];
  for (const signature of unique) {
    const tx = await history.transaction(signature);
    if (tx) txs.push(tx);
  }
  return txs.sort((a, b) =>
    a.slot === b.slot ? order.get(b.signature)! - order.get(a.signature)! : a.slot < b.slot ? -1 : 1,
  );
}

export interface Reconciliation {
  group_id: string;
  from: string | null;
  to: string | null;
  agents: number;
  transactions: number;
  discrepancies: Discrepancy[];
}

/** Reconciles a group the wallet is a member of: its agents (learnt from the log) against the chain's history. */
export async function reconcileGroup(
  ctx: Context,
  wallet: string,
  groupId: string,
  window: ReconcileWindow = {},
): Promise<Reconciliation> {
  const group = await ownedGroup(ctx, wallet, groupId, 'read');
  return reconcileAgents(ctx, groupId, [...group.invitations.keys()], window);
}

/** Reconciles these agents (a group's) against the chain's history: what `reconcileGroup` answers. */
export async function reconcileAgents(
  ctx: Pick<Context, 'store' | 'chain'>,
  groupId: string,
  agentIds: readonly string[],
  window: ReconcileWindow = {},
): Promise<Reconciliation> {
  const history = ctx.chain.transactionHistory?.();
  if (!history)
    throw new ServiceError(
      'service_unavailable',
      'The chain keeps no transaction history to reconcile with.',
    );
  const mints = ctx.chain.tokens.map((t) => t.mint);
  const agents: AgentRecord[] = [];
  for (const agentId of agentIds) {
    const events = [
      ...(await ctx.store.readStream(streams.agent(agentId))),
      ...(await ctx.store.readStream(streams.payments(agentId))),
    ]
      .map(decodeEvent)
      .filter((e): e is DomainEvent => e !== undefined);
    const transactions = await readAgentTransactions(history, agentId, mints);
    agents.push({ agentId, events, transactions, balances: await ctx.chain.balances(agentId) });
  }
  const iso = (at: number | undefined) => (at === undefined ? null : new Date(at).toISOString());
  return {
    group_id: groupId,
    from: iso(window.from),
    to: iso(window.to),
    agents: agents.length,
    transactions: new Set(agents.flatMap((a) => a.transactions.map((t) => t.signature))).size,
    discrepancies: reconcile({ agents, tokens: ctx.chain.tokens, treasury: ctx.chain.treasury, window }),
  };
}
