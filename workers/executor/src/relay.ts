/**
 * Turns accepted intents in the log into executor jobs. It follows the log from its checkpoint, so an
 * intent accepted just before an API instance died is still executed; the job is deduplicated by the
 * intent id for a day, and the executor is idempotent anyway.
 */
import type { EventStore, IntentData, JobQueue, ReadModelStore, Subscription } from '@tokenops/shared';
import type { ExecuteJob } from './execute';

export const RELAY = 'executor-relay';
const DAY_MS = 24 * 60 * 60 * 1000;

export async function startRelay(
  store: EventStore,
  checkpoints: ReadModelStore,
  queue: JobQueue<ExecuteJob>,
): Promise<Subscription> {
  const from = await checkpoints.checkpoint(RELAY);
  return store.subscribeToAll({
    ...(from && { from }),
    onEvent: async (event) => {
      if (event.type === 'intent.accepted') {
        const intent = event.data as IntentData;
        await queue.enqueue('execute', { intent }, { dedup: { id: intent.intent_id, ttlMs: DAY_MS } });
      }
      await checkpoints.commit(RELAY, event.position, []);
    },
  });
}
