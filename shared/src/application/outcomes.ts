/**
 * Waits for the outcome of intents. One subscription per process follows the log from its head; a
 * request registers its intent before appending it, so the outcome cannot slip past. Whichever
 * executor writes the outcome, every API instance sees it.
 */
import type { EventStore, Subscription } from '../event-store/port';
import type { IntentConfirmed, IntentFailed } from '../domain/events';

import type { LogPosition } from '../event-store/port';

export type Outcome = (IntentConfirmed | IntentFailed) & { position?: LogPosition };

export class OutcomeWaiter {
  /** Every request waiting on an intent: several may wait on one (retries with the same key). */
  private readonly waiting = new Map<string, Set<(outcome: Outcome) => void>>();
  private subscription: Subscription | undefined;

  constructor(private readonly store: EventStore) {}

  async start(): Promise<void> {
    const from = await this.store.headPosition();
    let ready!: () => void;
    const caughtUp = new Promise<void>((r) => (ready = r));
    this.subscription = this.store.subscribeToAll({
      from,
      onCaughtUp: () => ready(),
      onEvent: (e) => {
        if (e.type !== 'intent.confirmed' && e.type !== 'intent.failed') return;
        const data = e.data as Outcome['data'];
        const waiters = this.waiting.get(data.intent_id);
        if (waiters) {
          this.waiting.delete(data.intent_id);
          for (const resolve of waiters) resolve({ type: e.type, data, position: e.position } as Outcome);
        }
      },
    });
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
    await this.subscription?.stop();
  }
}
