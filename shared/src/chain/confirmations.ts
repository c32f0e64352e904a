/**
 * Confirmation of sent transactions, by subscription: each signature is watched over the node's
 * WebSocket (signatureSubscribe) and settles the moment its notification arrives. What is still in
 * flight after `sweepMs` (a notification lost, a socket reconnecting, a node slower than that) is
 * checked by one sweep every `sweepMs` for all of them: one getSignatureStatuses for every such
 * signature (256 a call, Solana's limit) and one getBlockHeight, never a poll per signature.
 *
 * A signature the sweep finds unknown after the block height passed its last valid height can no
 * longer land: it is reported as expired (BlockhashExpired), and the caller may check its status and
 * sign anew, never resending a transaction that could still land. The height is read before the
 * statuses, so one that landed at the very end is seen as landed. A sweep the node does not answer
 * fails the signatures it checked with that error (as a status poll did).
 */
import { ChainFailure, type SignatureStatus } from './port';

export interface ConfirmationSource {
  /** Calls `settled` once, when the node reports the signature processed; returns a way to stop listening. */
  subscribe(signature: string, settled: (failed: boolean) => void): () => void;
  /** The statuses of these signatures, in their order. */
  statuses(signatures: readonly string[]): Promise<SignatureStatus[]>;
  blockHeight(): Promise<number>;
}

interface Pending {
  signature: string;
  lastValidBlockHeight: bigint;
  since: number;
  /** Everyone waiting for it (the same transaction sent twice at once waits once). */
  waiters: Set<{ resolve(): void; reject(err: unknown): void }>;
  unsubscribe(): void;
}

export interface Watch {
  /** Settles when the signature lands (resolves) or fails, expires, or cannot be checked (rejects). */
  done: Promise<void>;
  /** Stops watching (the transaction was never sent); `done` then never settles. */
  cancel(): void;
}

const MAX_STATUSES = 256;

export class Confirmations {
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: ConfirmationSource,
    private readonly sweepMs = 500,
  ) {}

  /** Starts watching `signature`; start before sending, so no notification can be missed. */
  watch(signature: string, lastValidBlockHeight: bigint): Watch {
    let waiter!: { resolve(): void; reject(err: unknown): void };
    const done = new Promise<void>((resolve, reject) => (waiter = { resolve, reject }));
    // Settled before anyone awaits it (a send refused after its notification came) is no unhandled rejection.
    done.catch(() => undefined);
    let entry = this.pending.get(signature);
    if (!entry) {
      const fresh: Pending = {
        signature,
        lastValidBlockHeight,
        since: Date.now(),
        waiters: new Set(),
        unsubscribe: () => {},
      };
      this.pending.set(signature, fresh);
      fresh.unsubscribe = this.source.subscribe(signature, (failed) =>
        this.settle(signature, failed ? 'failed' : 'confirmed'),
      );
      entry = fresh;
    }
    entry.waiters.add(waiter);
    this.schedule();
    const watched = entry;
    return {
      done,
      cancel: () => {
        watched.waiters.delete(waiter);
        if (watched.waiters.size === 0 && this.pending.get(signature) === watched) this.remove(signature);
      },
    };
  }

  /** How many signatures are in flight. */
  get inFlight(): number {
    return this.pending.size;
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const signature of [...this.pending.keys()]) this.remove(signature);
  }

  private remove(signature: string): Pending | undefined {
    const entry = this.pending.get(signature);
    if (!entry) return undefined;
    this.pending.delete(signature);
    entry.unsubscribe();
    return entry;
  }

  private settle(signature: string, outcome: 'confirmed' | 'failed' | 'expired' | { error: unknown }): void {
    const entry = this.remove(signature);
    if (!entry) return;
    const error =
      outcome === 'failed'
        ? new ChainFailure('transaction failed')
        : outcome === 'expired'
          ? new ChainFailure('BlockhashExpired: the transaction did not land before its blockhash expired')
          : outcome === 'confirmed'
            ? undefined
            : outcome.error;
    for (const w of entry.waiters) {
      if (error === undefined) w.resolve();
      else w.reject(error);
    }
  }

  private schedule(): void {
    if (this.timer || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      void this.sweep().finally(() => {
        this.timer = undefined;
        this.schedule();
      });
    }, this.sweepMs);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    const due = Date.now() - this.sweepMs;
    const stale = [...this.pending.values()].filter((p) => p.since <= due).map((p) => p.signature);
    if (stale.length === 0) return;
    try {
      const height = BigInt(await this.source.blockHeight());
      for (let i = 0; i < stale.length; i += MAX_STATUSES) {
        const batch = stale.slice(i, i + MAX_STATUSES);
        const statuses = await this.source.statuses(batch);
        batch.forEach((signature, j) => {
          const status = statuses[j] ?? 'unknown';
          if (status !== 'unknown') this.settle(signature, status);
          else if (height > (this.pending.get(signature)?.lastValidBlockHeight ?? height))
            this.settle(signature, 'expired');
        });
      }
    } catch (error) {
      for (const signature of stale) this.settle(signature, { error });
    }
  }
}
