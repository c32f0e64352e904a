/**
 * Turns accepted intents in the log into executor jobs. It follows the log from its checkpoint, so an
 * intent accepted just before an API instance died is still executed. The checkpoint is written at
 * most every CHECKPOINT_MS (and on stop), not per event: after a crash the relay goes over at most
 * that much of the log again, and the jobs it enqueues again are deduplicated by intent id while the
 * first waits or runs; one enqueued again after the first finished finds its intent settled and does
 * nothing (the executor is idempotent).
 *
 * A held intent (waiting for a person) is not executed on its acceptance: its job is queued when its
 * approval is decided (`approval.decided`: approved, it runs; rejected or expired, the executor fails
 * it if whoever decided did not get to). An x402 payment refused that may still land
 * (`x402.payment_refused`) has its intent queued again, in case the executor that recorded it died
 * before it asked for the next look (execute.ts `later`).
 *
 * Each job carries the trace of its intent on (a `Handoff` in its data): `relay.pickup` is the span from
 * the intent's append (its timestamp) to its job queued, child of the append that wrote it.
 */
import {
  LOG_START,
  decodeEvent,
  handoff,
  inSpanFrom,
  ofTypes,
  streams,
  type EventStore,
  type JobQueue,
  type LogPosition,
  type ReadModelStore,
  type Subscription,
} from '@tokenops/shared';
import type { ExecuteJob, Later } from './execute';

export const RELAY = 'executor-relay';
const CHECKPOINT_MS = 250;
const MAX_IN_FLIGHT = 64;

export async function startRelay(
  store: EventStore,
  checkpoints: ReadModelStore,
  queue: JobQueue<ExecuteJob>,
): Promise<Subscription> {
  const from = await checkpoints.checkpoint(RELAY);
  let seen: LogPosition = from ?? LOG_START;
  let saved = seen;
  let savedAt = 0;
  // Jobs are enqueued concurrently (order does not matter to the executor); the checkpoint never passes
  // an intent whose job is not in the queue yet.
  const inFlight = new Set<Promise<unknown>>();
  let failure: unknown;
  const save = async () => {
    if (seen === saved) return;
    const at = seen;
    await Promise.all(inFlight);
    if (failure) throw failure;
    await checkpoints.commit(RELAY, at, []);
    saved = at;
    savedAt = Date.now();
  };
  const following = store.subscribeToAll({
    ...(from && { from }),
    wakeFor: ofTypes('intent.accepted', 'approval.decided', 'x402.payment_refused'),
    onEvent: async (event) => {
      if (failure) throw failure;
      const e = decodeEvent(event);
      const intent =
        e?.type === 'intent.accepted' && !e.data.held
          ? e.data
          : e?.type === 'approval.decided' || e?.type === 'x402.payment_refused'
            ? await acceptedIntent(store, e.data.agent_id, e.data.intent_id)
            : undefined;
      if (intent) {
        const id = e?.type === 'x402.payment_refused' ? `${intent.intent_id}:refused` : intent.intent_id;
        const job = inSpanFrom(
          event.metadata,
          'relay.pickup',
          () => queue.enqueue('execute', jobOf(intent), { dedup: { id } }),
          { startTime: Date.parse(event.metadata.timestamp) },
        )
          .catch((err: unknown) => (failure ??= err))
          .finally(() => inFlight.delete(job));
        inFlight.add(job);
        if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
      }
      seen = event.position;
      if (Date.now() - savedAt >= CHECKPOINT_MS) await save();
    },
  });
  // Quiet log: the last events seen are checkpointed too.
  const timer = setInterval(() => void save().catch(() => undefined), CHECKPOINT_MS);
  timer.unref();
  return {
    done: following.done.finally(() => clearInterval(timer)),
    stop: async () => {
      clearInterval(timer);
      await following.stop();
      await save().catch(() => undefined);
    },
  };
}

/**
 * Runs an intent again after a delay: its job queued with it. Runs asking within one delay of each
 * other are one job while it waits (a refused x402 payment asked about by two runs at once is asked
 * about once).
 */
export const runLater =
  (queue: JobQueue<ExecuteJob>): Later =>
  async (intent, delayMs) => {
    const id = `${intent.intent_id}:later:${Math.floor(Date.now() / delayMs)}`;
    await queue.enqueue('execute', jobOf(intent), { delayMs, dedup: { id } });
  };

/** The acceptance of an intent, from its agent's stream. */
async function acceptedIntent(store: EventStore, agentId: string, intentId: string) {
  for (const recorded of await store.readStream(streams.agent(agentId))) {
    const e = decodeEvent(recorded);
    if (e?.type === 'intent.accepted' && e.data.intent_id === intentId) return e.data;
  }
  return undefined;
}

/** The job of an intent, with the trace it continues when tracing is on. */
function jobOf(intent: ExecuteJob['intent']): ExecuteJob {
  const trace = handoff();
  return trace ? { intent, trace } : { intent };
}
