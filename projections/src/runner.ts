/**
 * Runs the agent-views projection: follows the log from the store's checkpoint and commits the
 * events' writes with the checkpoint, atomically, in batches (batch.ts). Replaying into an empty
 * store rebuilds the views.
 */
import {
  comparePositions,
  type EventStore,
  type LogPosition,
  type ReadModelStore,
  type Subscription,
  type Token,
} from '@tokenops/shared';
import { PROJECTION } from './agent-views';
import { BatchedProjection } from './batch';

export interface ProjectionRunner {
  subscription: Subscription;
  /** Resolves once every event committed at start has been applied. */
  caughtUp: Promise<void>;
}

export async function startProjection(
  store: EventStore,
  views: ReadModelStore,
  tokens: readonly Token[],
): Promise<ProjectionRunner> {
  const from = await views.checkpoint(PROJECTION);
  let ready!: () => void;
  const caughtUp = new Promise<void>((r) => (ready = r));
  let fail!: (err: unknown) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  const batch = new BatchedProjection(views, tokens, (err) => fail(err));
  const following = store.subscribeToAll({
    ...(from && { from }),
    // Every append but the idempotency records (two of a spend's five): the views' checkpoint is also
    // how far reads and operator writes wait for (read your writes), so it follows all the rest promptly.
    wakeFor: (type) => !type.startsWith('idempotency.'),
    onCaughtUp: () => void batch.flush().then(ready, ready),
    onEvent: (event) => batch.apply(event),
  });
  // Ends when the log subscription ends, or when a batch could not be committed.
  const done = Promise.race([following.done, failed]);
  done.catch(() => ready());
  const subscription: Subscription = {
    done,
    stop: async () => {
      await following.stop();
      await batch.flush().catch(() => undefined);
    },
  };
  return { subscription, caughtUp };
}

/** Whether the views' checkpoint is at or past `position`. */
export const includes = (at: LogPosition | undefined, position: LogPosition): boolean =>
  at !== undefined && comparePositions(at, position) >= 0;

/**
 * Resolves once the projection has applied the event at `position` (true), or after `timeoutMs`
 * (false). Asks the views' checkpoint at once, then every 2 ms, backing off to every 50 ms: a
 * projector a few milliseconds behind is met at once, one that is down costs a few dozen reads.
 */
export async function projectedPast(
  views: ReadModelStore,
  position: LogPosition,
  timeoutMs = 2_000,
): Promise<boolean> {
  const giveUpAt = Date.now() + timeoutMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    if (includes(await views.checkpoint(PROJECTION), position)) return true;
    const left = giveUpAt - Date.now();
    if (left <= 0) return false;
    await new Promise((r) => setTimeout(r, Math.min(pause, left)));
  }
}
