/**
 * The recent prioritization fees the local chain node reports (getRecentPrioritizationFees), from
 * what it executed, as Solana's RPC documents them: per slot of the last 150, the lowest
 * compute-unit price (micro-lamports) a transaction landed at in that slot, and for an account the
 * lowest price a transaction writing it landed at; asked over accounts, a slot answers the highest
 * of those (a transaction writing all of them had to beat each), and never less than the slot's own
 * lowest. A transaction that sets no price landed at 0. Slots with no transaction are not reported.
 * Kept in memory: a restarted node, as a restarted validator, reports from then on.
 */
import { budgetOf, writableKeys } from './compute-budget';
import type { WireMessage } from './message';
import type { PrioritizationFee } from './compute-budget';

/** Slots kept: Solana's prioritization-fee cache holds the last 150 blocks. */
export const RECENT_SLOTS = 150;
/** The most accounts one ask may name, as Solana's RPC. */
export const MAX_FEE_ACCOUNTS = 128;

interface SlotFees {
  lowest: bigint;
  /** Per written account, the lowest price of a transaction writing it. */
  accounts: Map<string, bigint>;
}

export class RecentPrioritizationFees {
  // Slots in the order they came (they only move forward), the oldest first.
  private readonly slots = new Map<bigint, SlotFees>();

  /** A transaction that executed (landed or failed) in `slot`. */
  executed(slot: bigint, message: WireMessage): void {
    const price = budgetOf(message).microLamports ?? 0n;
    let fees = this.slots.get(slot);
    if (!fees) {
      fees = { lowest: price, accounts: new Map() };
      this.slots.set(slot, fees);
      for (const old of this.slots.keys()) {
        if (this.slots.size <= RECENT_SLOTS) break;
        this.slots.delete(old);
      }
    } else if (price < fees.lowest) fees.lowest = price;
    for (const account of writableKeys(message)) {
      const known = fees.accounts.get(account);
      if (known === undefined || price < known) fees.accounts.set(account, price);
    }
  }

  /**
   * Per recent slot (of the 150 up to `current`), oldest first: the fee a transaction writing all of
   * `accounts` landed at, at least.
   */
  recent(accounts: readonly string[], current: bigint): PrioritizationFee[] {
    const out: PrioritizationFee[] = [];
    for (const [slot, fees] of this.slots) {
      if (slot <= current - BigInt(RECENT_SLOTS)) continue;
      let fee = fees.lowest;
      for (const account of accounts) {
        const written = fees.accounts.get(account);
        if (written !== undefined && written > fee) fee = written;
      }
      out.push({ slot, fee });
    }
    return out;
  }
}
