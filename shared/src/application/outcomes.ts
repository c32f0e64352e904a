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
  private readonly waiting = new Map<string, (outcome: Outcome) => void>();
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
        const resolve = this.waiting.get(data.intent_id);
        if (resolve) {
          this.waiting.delete(data.intent_id);
          resolve({ type: e.type, data, position: e.position } as Outcome);
        }
      },
    });
    await caughtUp;
  }

  /** Registers interest in an intent; the promise settles with its outcome, or undefined after `timeoutMs`. */
  expect(intentId: string, timeoutMs: number): { outcome: Promise<Outcome | undefined>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    const outcome = new Promise<Outcome | undefined>((resolve) => {
      this.waiting.set(intentId, (o) => {
        clearTimeout(timer);
        resolve(o);
      });
      timer = setTimeout(() => {
        this.waiting.delete(intentId);
        resolve(undefined);
      }, timeoutMs);
    });
    return {
      outcome,
      cancel: () => {
        clearTimeout(timer);
        this.waiting.delete(intentId);
      },
    };
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }
}
