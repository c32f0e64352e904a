/**
 * What a transaction offers for priority and how many compute units it asks, as rules: the price
 * (micro-lamports per compute unit) from the setting and the recent fees the chain reports, the limit
 * from a simulation with a margin, and the SOL fee that follows from them. On a congested cluster a
 * transaction without a compute-unit price waits or drops; the fee the chain takes is known from the
 * signed bytes alone (Solana: 5,000 lamports a signature, plus price × limit, rounded up).
 */

/** `auto`: a percentile of the recent fees; a fixed price; `off`: no price at all. */
export type PriorityFeeSetting =
  { kind: 'auto' } | { kind: 'fixed'; microLamports: bigint } | { kind: 'off' };

export interface PriorityFeePolicy {
  setting: PriorityFeeSetting;
  /** The percentile of the recent per-slot fees `auto` offers (0-100). */
  percentile: number;
  /** The most `auto` offers, micro-lamports per compute unit. */
  maxMicroLamports: bigint;
}

export interface ComputeBudgetPolicy extends PriorityFeePolicy {
  /** What the limit adds to the units a simulation consumed, percent. */
  marginPercent: number;
}

/** PRIORITY_FEE's default and its companions' (the settings catalogue states them). */
export const DEFAULT_COMPUTE_BUDGET: ComputeBudgetPolicy = {
  setting: { kind: 'auto' },
  percentile: 75,
  maxMicroLamports: 1_000_000n,
  marginPercent: 20,
};

/** The most compute units a transaction may ask for (Solana's MAX_COMPUTE_UNIT_LIMIT). */
export const MAX_COMPUTE_UNITS = 1_400_000;
/** What a transaction may use with no limit set: 200,000 per instruction, at most the maximum. */
export const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
/** Lamports per signature, Solana's base fee. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;

/** Reads PRIORITY_FEE: `auto`, `off`, or a whole number of micro-lamports per compute unit. */
export function parsePriorityFee(text: string): PriorityFeeSetting {
  const value = text.trim().toLowerCase();
  if (value === 'auto') return { kind: 'auto' };
  if (value === 'off') return { kind: 'off' };
  if (/^\d{1,19}$/.test(value)) return { kind: 'fixed', microLamports: BigInt(value) };
  throw new RangeError(`PRIORITY_FEE must be auto, off or a whole number of micro-lamports, not ${text}`);
}

/**
 * The `percentile` of the fees (nearest rank: the smallest fee at least that share of them reach); 0
 * when there are none (a quiet chain asks no priority).
 */
export function percentileOf(fees: readonly bigint[], percentile: number): bigint {
  if (fees.length === 0) return 0n;
  const sorted = [...fees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rank = Math.max(1, Math.ceil((Math.min(100, Math.max(0, percentile)) / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/**
 * The compute-unit price to set, micro-lamports per unit; undefined for none (`off`). `recent`: the
 * per-slot fees getRecentPrioritizationFees reports over the accounts the transaction writes (only
 * `auto` reads them). A fixed price is the operator's own and is not capped.
 */
export function choosePriorityFee(policy: PriorityFeePolicy, recent: readonly bigint[]): bigint | undefined {
  switch (policy.setting.kind) {
    case 'off':
      return undefined;
    case 'fixed':
      return policy.setting.microLamports;
    case 'auto': {
      const wanted = percentileOf(recent, policy.percentile);
      return wanted > policy.maxMicroLamports ? policy.maxMicroLamports : wanted;
    }
  }
}

/**
 * The compute-unit limit to ask: what a simulation consumed plus `marginPercent`, rounded up, within
 * the maximum; without a simulation, what the runtime would allow anyway (200,000 per instruction).
 */
export function computeUnitLimit(
  consumed: bigint | undefined,
  marginPercent: number,
  instructions: number,
): number {
  if (consumed === undefined || consumed <= 0n)
    return Math.min(MAX_COMPUTE_UNITS, DEFAULT_UNITS_PER_INSTRUCTION * Math.max(1, instructions));
  const withMargin = (consumed * BigInt(100 + marginPercent) + 99n) / 100n;
  return Number(withMargin > BigInt(MAX_COMPUTE_UNITS) ? BigInt(MAX_COMPUTE_UNITS) : withMargin);
}

/** The SOL fee of a transaction, lamports: the base fee of its signatures and its priority fee (price × limit, rounded up). */
export function transactionFee(signatures: number, computeUnits: number, microLamports: bigint): bigint {
  const priority = (microLamports * BigInt(computeUnits) + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(signatures) + priority;
}
