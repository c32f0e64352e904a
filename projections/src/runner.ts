/**
 * Runs the agent-views projection: follows the log from the store's checkpoint and commits the
 * events' writes with the checkpoint, atomically, in batches (batch.ts). Replaying into an empty
 * store rebuilds the views.
 */
import type { EventStore, ReadModelStore, Subscription, Token } from '@tokenops/shared';
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

/** Resolves once the projection has applied the event at `position` (or after `timeoutMs`, false). */
export async function projectedPast(
  views: ReadModelStore,
  position: { commit: bigint; prepare: bigint },
  timeoutMs = 2_000,
): Promise<boolean> {
  const start = Date.now();
  for (;;) {
    const at = await views.checkpoint(PROJECTION);
    if (
      at &&
      (at.commit > position.commit || (at.commit === position.commit && at.prepare >= position.prepare))
    )
      return true;
    if (Date.now() - start > timeoutMs) return false;
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Resolves when the projection has applied everything in the log up to now. */
export async function projectionAt(
  store: EventStore,
  views: ReadModelStore,
  timeoutMs = 5_000,
): Promise<void> {
  const head = await store.headPosition();
  const start = Date.now();
  for (;;) {
    const at = await views.checkpoint(PROJECTION);
    if (
      head.commit === 0n ||
      (at && (at.commit > head.commit || (at.commit === head.commit && at.prepare >= head.prepare)))
    )
      return;
    if (Date.now() - start > timeoutMs) throw new Error('the projection did not catch up in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
