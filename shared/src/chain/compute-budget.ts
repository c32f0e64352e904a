/**
 * The compute budget of the service's transactions: a compute-unit price (PRIORITY_FEE: a percentile
 * of getRecentPrioritizationFees over the accounts the transaction writes, or a fixed price) and a
 * compute-unit limit sized from a simulation with a margin, as the ComputeBudget program's
 * SetComputeUnitLimit and SetComputeUnitPrice instructions in front of the transaction's own. The
 * rules are domain/priority-fee.ts; this reads the chain for them and builds the instructions.
 *
 * A simulation costs a call, a run on the node and a signing: transactions of one shape (the same
 * programs, with data of the same lengths, on the same number of accounts) consume the same units
 * within the margin, so one simulation sizes the shape, except where the cost depends on the state:
 * an idempotent token-account creation costs about 25,000 units more when it creates than when the
 * account exists, so a transaction with one is simulated each time (a limit sized on one that found
 * its account failed the next that created it: ProgramFailedToComplete). The recent fees of a set
 * of accounts are asked once a second at most (a slot is 400 ms; the node reports the last 150).
 *
 * The fee a transaction pays follows from its signed bytes alone (`feeOf`): the executor records it
 * with the confirmation from the very bytes it sent, first time or resent.
 */
import type { Instruction } from '@solana/kit';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';
import {
  DEFAULT_UNITS_PER_INSTRUCTION,
  MAX_COMPUTE_UNITS,
  choosePriorityFee,
  computeUnitLimit,
  transactionFee,
  type ComputeBudgetPolicy,
} from '../domain/priority-fee';
import type { Signer } from './keys';
import { isWritableIndex, readMessage, type WireMessage } from './message';
import type { SignedTransaction } from './transactions';

export { COMPUTE_BUDGET_PROGRAM_ADDRESS };

/** One slot's fee as getRecentPrioritizationFees reports it: micro-lamports per compute unit. */
export interface PrioritizationFee {
  slot: bigint;
  fee: bigint;
}

/** What the budget reads of the chain (the chain port's part). */
export interface BudgetChain {
  readonly feePayer: string;
  prepare(instructions: readonly Instruction[], signers: readonly Signer[]): Promise<SignedTransaction>;
  recentPrioritizationFees(accounts: readonly string[]): Promise<PrioritizationFee[]>;
  unitsConsumed(tx: SignedTransaction): Promise<bigint | undefined>;
}

/** SetComputeUnitLimit, then SetComputeUnitPrice unless there is no price (PRIORITY_FEE=off). */
export function computeBudgetInstructions(units: number, microLamports: bigint | undefined): Instruction[] {
  return [
    getSetComputeUnitLimitInstruction({ units }),
    ...(microLamports === undefined ? [] : [getSetComputeUnitPriceInstruction({ microLamports })]),
  ];
}

/** The accounts the instructions write, the fee payer first (it pays, so it is written too). */
export function writtenAccounts(instructions: readonly Instruction[], feePayer: string): string[] {
  const out = new Set([feePayer]);
  for (const ix of instructions)
    for (const meta of ix.accounts ?? []) if ((meta.role & 1) !== 0) out.add(meta.address);
  return [...out];
}

/** The limit and price a message's compute-budget instructions set (absent: none set). */
export function budgetOf(message: Pick<WireMessage, 'accountKeys' | 'instructions'>): {
  units?: number;
  microLamports?: bigint;
  /** The instructions other than the compute budget's. */
  others: number;
} {
  let units: number | undefined;
  let microLamports: bigint | undefined;
  let others = 0;
  for (const ix of message.instructions) {
    if (message.accountKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM_ADDRESS) {
      others += 1;
      continue;
    }
    const data = Buffer.from(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (data[0] === 2 && data.length >= 5) units = data.readUInt32LE(1);
    if (data[0] === 3 && data.length >= 9) microLamports = data.readBigUInt64LE(1);
  }
  return {
    ...(units !== undefined && { units }),
    ...(microLamports !== undefined && { microLamports }),
    others,
  };
}

/** The SOL fee of a message and who pays it: its first account, 5,000 lamports a signature and price × limit. */
export function feeOf(message: WireMessage): { lamports: bigint; payer: string } {
  const budget = budgetOf(message);
  const units = budget.units ?? Math.min(MAX_COMPUTE_UNITS, DEFAULT_UNITS_PER_INSTRUCTION * budget.others);
  return {
    lamports: transactionFee(
      message.header.numRequiredSignatures,
      Math.min(units, MAX_COMPUTE_UNITS),
      budget.microLamports ?? 0n,
    ),
    payer: message.accountKeys[0]!,
  };
}

/** The message of a transaction's wire bytes (past its signatures). */
export function messageOfWire(wire: Uint8Array): WireMessage {
  const count = wire[0]!; // the service's transactions carry fewer than 128 signatures: one byte
  return readMessage(wire.subarray(1 + 64 * count));
}

/** The accounts a message writes (its writable static keys). */
export function writableKeys(message: WireMessage): string[] {
  return message.accountKeys.filter((_, i) => isWritableIndex(message, i));
}

// A shape: the programs, in order, with their data lengths and account counts.
const shapeOf = (instructions: readonly Instruction[]) =>
  instructions
    .map((ix) => `${ix.programAddress}:${ix.data?.length ?? 0}:${ix.accounts?.length ?? 0}`)
    .join(',');

/** Prepares the service's transactions with their compute budget in front (the policy's price and a simulated limit). */
export class ComputeBudget {
  private readonly fees = new Map<string, { at: number; value: Promise<PrioritizationFee[]> }>();

  constructor(readonly policy: ComputeBudgetPolicy) {}

  private readonly units = new Map<string, number>();

  /** The instructions with the compute budget in front, signed; nothing is sent. */
  async prepare(
    chain: BudgetChain,
    instructions: readonly Instruction[],
    signers: readonly Signer[],
  ): Promise<SignedTransaction> {
    const price = await this.price(chain, instructions);
    const units = await this.limit(chain, instructions, signers, price);
    return chain.prepare([...computeBudgetInstructions(units, price), ...instructions], signers);
  }

  private async price(chain: BudgetChain, instructions: readonly Instruction[]): Promise<bigint | undefined> {
    if (this.policy.setting.kind !== 'auto') return choosePriorityFee(this.policy, []);
    const accounts = writtenAccounts(instructions, chain.feePayer);
    const recent = await this.recentFees(chain, accounts);
    return choosePriorityFee(
      this.policy,
      recent.map((f) => f.fee),
    );
  }

  private recentFees(chain: BudgetChain, accounts: readonly string[]): Promise<PrioritizationFee[]> {
    const key = [...accounts].sort().join(',');
    const now = Date.now();
    const known = this.fees.get(key);
    if (known && now - known.at <= 1_000) return known.value;
    if (this.fees.size > 10_000) this.fees.clear();
    const value = chain.recentPrioritizationFees(accounts);
    this.fees.set(key, { at: now, value });
    value.catch(() => this.fees.delete(key));
    return value;
  }

  private async limit(
    chain: BudgetChain,
    instructions: readonly Instruction[],
    signers: readonly Signer[],
    price: bigint | undefined,
  ): Promise<number> {
    const shape = instructions.some((ix) => ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS)
      ? undefined
      : shapeOf(instructions);
    const known = shape && this.units.get(shape);
    if (known) return known;
    // Simulated with the most units it may ask and the price it will carry: what it consumes then is
    // what it consumes with a smaller limit (the budget instructions' own units included).
    const trial = await chain.prepare(
      [...computeBudgetInstructions(MAX_COMPUTE_UNITS, price), ...instructions],
      signers,
    );
    const consumed = await chain.unitsConsumed(trial);
    const units = computeUnitLimit(consumed, this.policy.marginPercent, instructions.length);
    // A simulation that failed (the node away, a program error) sizes nothing for the next ones.
    if (shape && consumed !== undefined) {
      if (this.units.size > 10_000) this.units.clear();
      this.units.set(shape, units);
    }
    return units;
  }
}
