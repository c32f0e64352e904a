/**
 * A lease in Redis: one holder at a time among several processes (projectors, relays). The holder
 * renews it every second (TAKEOVER), well inside its time to live; a holder that stops renewing
 * (killed, paused, cut off) loses it when it runs out (5 s), and a standby, which tries every half
 * second, takes over. Writes made under a lease carry its token as a commit guard, so a holder that
 * lost the lease without knowing cannot write any more.
 */
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { TAKEOVER } from '../settings/takeover';
import type { CommitGuard } from './redis';

const RENEW_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class Lease {
  readonly token = randomUUID();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    readonly key: string,
    private readonly ttlMs: number = TAKEOVER.ttlMs,
  ) {}

  get guard(): CommitGuard {
    return { key: this.key, value: this.token };
  }

  async tryAcquire(): Promise<boolean> {
    return (await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  /**
   * Waits until the lease is this process's (checking every `pollMs`), then renews it every second
   * (every third of its time to live if that is shorter); `onLost` is called once if a renewal finds
   * it gone. `aborted` ends the wait.
   */
  async hold(options: { onLost(): void; aborted(): boolean; pollMs?: number }): Promise<boolean> {
    while (!(await this.tryAcquire().catch(() => false))) {
      if (options.aborted()) return false;
      await new Promise((r) => setTimeout(r, options.pollMs ?? TAKEOVER.pollMs));
    }
    this.timer = setInterval(
      () => {
        this.redis.eval(RENEW_LUA, 1, this.key, this.token, this.ttlMs).then(
          (kept) => {
            if (kept === 1) return;
            this.stopRenewing();
            options.onLost();
          },
          () => undefined, // Redis unreachable: the next renewal tries again; commits are guarded anyway
        );
      },
      Math.min(TAKEOVER.renewMs, Math.floor(this.ttlMs / 3)),
    );
    return true;
  }

  private stopRenewing(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Gives the lease up at once (a graceful stop), so a standby takes over without waiting. */
  async release(): Promise<void> {
    this.stopRenewing();
    await this.redis.eval(RELEASE_LUA, 1, this.key, this.token).catch(() => undefined);
  }
}

/** A lease taken (after waiting so long for it), or given up and why. */
export type LeaseChange =
  { held: true; waitedMs: number } | { held: false; reason: 'lost' | 'failed' | 'ended' | 'stopping' };

export interface Leadership {
  /** True while this process holds the lease and its work runs. */
  leading(): boolean;
  /** Stops the work (letting the handler in flight finish) and gives the lease up. */
  stop(): Promise<void>;
}

/**
 * Runs `work` while this process holds the lease named `key`, as one of any number of standbys. The
 * work ends when the lease is lost, when a guarded commit is refused, or when it fails (the store went
 * away): then, after `retryMs`, the process competes for the lease again and the work resumes from
 * its checkpoint.
 */
export function whileLeader(options: {
  redis: Redis;
  key: string;
  ttlMs?: number;
  retryMs?: number;
  onError(err: unknown): void;
  /** Told when this process starts and stops running the work (logs, `tokenops_lease_held`). */
  onChange?(change: LeaseChange): void;
  work(lease: Lease): Promise<{ done: Promise<void>; stop(): Promise<void> }>;
}): Leadership {
  let stopped = false;
  let leading = false;
  let wakeStop: (() => void) | undefined;
  const stopSignal = new Promise<void>((r) => (wakeStop = r));
  const loop = async () => {
    while (!stopped) {
      const lease = new Lease(options.redis, options.key, options.ttlMs);
      let lost!: () => void;
      let wasLost = false;
      const lostSignal = new Promise<void>((r) => (lost = r));
      const waitFrom = Date.now();
      const held = lease.hold({
        onLost: () => ((wasLost = true), lost()),
        aborted: () => stopped,
      });
      if (!(await held)) break;
      let running: { done: Promise<void>; stop(): Promise<void> } | undefined;
      let failed = false;
      try {
        running = await options.work(lease);
        leading = true;
        options.onChange?.({ held: true, waitedMs: Date.now() - waitFrom });
        await Promise.race([running.done, lostSignal, stopSignal]);
      } catch (err) {
        failed = true;
        options.onError(err);
      } finally {
        if (leading) {
          const reason = stopped ? 'stopping' : wasLost ? 'lost' : failed ? 'failed' : 'ended';
          options.onChange?.({ held: false, reason });
        }
        leading = false;
        await running?.stop().catch(() => undefined);
        await lease.release();
      }
      if (!stopped)
        await Promise.race([new Promise((r) => setTimeout(r, options.retryMs ?? 1_000)), stopSignal]);
    }
  };
  const done = loop();
  return {
    leading: () => leading,
    stop: async () => {
      stopped = true;
      wakeStop?.();
      await done;
    },
  };
}
