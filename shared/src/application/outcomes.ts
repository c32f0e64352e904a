/**
 * Waits for the outcome of intents. One subscription per process follows the log from its head; a
 * request registers its intent before appending it, so the outcome cannot slip past. Whichever
 * executor writes the outcome, every API instance sees it.
 */
import { ofTypes, type EventStore, type Subscription } from '../event-store/port';
import type { IntentConfirmed, IntentFailed, X402PaymentRefused } from '../domain/events';
import { recordWait } from '../tracing/spans';

import type { LogPosition } from '../event-store/port';

/**
 * What settles an intent, or what the agent is told before it settles: an x402 payment the resource
 * refused but may still land (the key stays open until the intent settles).
 */
export type Outcome = (IntentConfirmed | IntentFailed | X402PaymentRefused) & { position?: LogPosition };

const ANSWERS: ReadonlySet<string> = new Set<Outcome['type']>([
  'intent.confirmed',
  'intent.failed',
  'x402.payment_refused',
]);

export class OutcomeWaiter {
  /** Every request waiting on an intent: several may wait on one (retries with the same key). */
  private readonly waiting = new Map<string, Set<(outcome: Outcome) => void>>();
  private subscription: Subscription | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly store: EventStore) {}

  /**
   * Follows the log from its head. If the store goes away the subscription ends; it is started again
   * from the last event seen (after `retryMs`), so no outcome is missed once the store is back.
   */
  async start(retryMs = 500): Promise<void> {
    let from = await this.store.headPosition();
    let ready!: () => void;
    const caughtUp = new Promise<void>((r) => (ready = r));
    const follow = () => {
      const subscription = this.store.subscribeToAll({
        from,
        wakeFor: ofTypes(...ANSWERS),
        onCaughtUp: () => ready(),
        onEvent: (e) => {
          from = e.position;
          if (!ANSWERS.has(e.type)) return;
          const data = e.data as Outcome['data'];
          const waiters = this.waiting.get(data.intent_id);
          if (waiters) {
            this.waiting.delete(data.intent_id);
            // From the outcome's append (in the executor) to this wake, in the intent's trace.
            recordWait('waiter.wake', e.metadata, Date.parse(e.metadata.timestamp));
            for (const resolve of waiters) resolve({ type: e.type, data, position: e.position } as Outcome);
          }
        },
      });
      this.subscription = subscription;
      subscription.done.catch(() => {
        if (this.subscription !== subscription || this.stopped) return;
        this.retry = setTimeout(follow, retryMs);
      });
    };
    follow();
    await caughtUp;
  }

  /** Registers interest in an intent; the promise settles with its outcome, or undefined after `timeoutMs`. */
  expect(intentId: string, timeoutMs: number): { outcome: Promise<Outcome | undefined>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    let waiter!: (outcome: Outcome) => void;
    const forget = () => {
      clearTimeout(timer);
      const set = this.waiting.get(intentId);
      set?.delete(waiter);
      if (set?.size === 0) this.waiting.delete(intentId);
    };
    const outcome = new Promise<Outcome | undefined>((resolve) => {
      waiter = (o) => {
        clearTimeout(timer);
        resolve(o);
      };
      let set = this.waiting.get(intentId);
      if (!set) this.waiting.set(intentId, (set = new Set()));
      set.add(waiter);
      timer = setTimeout(() => {
        forget();
        resolve(undefined);
      }, timeoutMs);
    });
    return { outcome, cancel: forget };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.subscription?.stop();
  }
}
