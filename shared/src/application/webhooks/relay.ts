/**
 * The webhook relay: follows the log from its checkpoint, keeps the subscriptions (the `webhook.*`
 * events), derives each event's webhook events through the catalogue, and turns each into one
 * delivery per matching subscription, kept once per (webhook, event id) in the delivery store; then
 * one job per delivery. Events are gathered in small batches, each committed with the checkpoint in
 * one transaction; a batch that holds nothing but the checkpoint's move (most events make no
 * delivery) waits up to CHECKPOINT_ONLY_MS for more: going over those events again after a crash
 * makes nothing new. One relay runs at a time (a lease in the server topology); a relay that lost its
 * lease cannot commit (the checkpoint moves only from where it read it).
 *
 * A crash between a commit and its jobs leaves deliveries pending: at start the relay enqueues every
 * pending delivery again (the job ids deduplicate what the queue still holds).
 */
import { derivePublicEvents, needsOf, type PublicEvent } from '../../events/catalogue';
import { decodeEvent } from '../../domain/events';
import type { NewDelivery, RelayCommit, DeliveryStore, WebhookSubscription } from '../../deliveries/port';
import type {
  EventStore,
  LogPosition,
  RecordedEvent,
  Subscription as Following,
} from '../../event-store/port';
import type { JobQueue } from '../../queue/port';
import { stringifyJson } from '../../contract/json';
import { LogLookup } from './lookup';
import { decodeWebhookEvent, evolveSubscription } from './subscriptions';
import { enqueueDelivery, type DeliveryJob } from './deliver';

const MAX_BATCH = 500;
/** How long a batch with nothing to commit but the checkpoint waits for more (one commit, not one per event burst). */
const CHECKPOINT_ONLY_MS = 250;

/** Whether a subscription receives a webhook event. */
export const receives = (sub: WebhookSubscription, e: PublicEvent): boolean =>
  sub.status === 'active' &&
  sub.event_types.includes(e.kind) &&
  (sub.agent_id ? e.agentId === sub.agent_id : e.groupId === sub.group_id);

export async function startWebhookRelay(deps: {
  store: EventStore;
  deliveries: DeliveryStore;
  queue: JobQueue<DeliveryJob>;
  now: () => number;
}): Promise<Following> {
  const { store, deliveries, queue, now } = deps;
  let committed = await deliveries.relayCheckpoint();
  const subs = new Map((await deliveries.activeSubscriptions()).map((s) => [s.webhook_id, s]));
  const lookup = new LogLookup(store);
  for (const d of await deliveries.pending(100_000)) await enqueueDelivery(queue, d, now());

  let batch: Omit<RelayCommit, 'from' | 'to'> & { to?: LogPosition } = fresh();
  let flushing: Promise<void> = Promise.resolve();
  let failure: unknown;
  let scheduled = false;
  let checkpointDue: NodeJS.Timeout | undefined;

  function fresh() {
    return {
      subscriptions: [] as WebhookSubscription[],
      deliveries: [] as NewDelivery[],
      redeliver: [] as RelayCommit['redeliver'],
    };
  }
  const flush = (): Promise<void> => {
    scheduled = false;
    clearTimeout(checkpointDue);
    checkpointDue = undefined;
    const b = batch;
    batch = fresh();
    if (!b.to) return flushing;
    const to = b.to;
    flushing = flushing.then(async () => {
      if (failure) return;
      try {
        const added = await deliveries.commitRelay({ ...b, from: committed, to });
        committed = to;
        for (const d of added) await enqueueDelivery(queue, d, now());
      } catch (err) {
        failure = err;
      }
    });
    return flushing;
  };

  const onEvent = async (recorded: RecordedEvent) => {
    if (failure) throw failure;
    const hook = decodeWebhookEvent(recorded);
    if (hook) {
      const group =
        hook.type === 'webhook.registered' && hook.data.agent_id && !hook.data.group_id
          ? await lookup.groupOf(hook.data.agent_id)
          : undefined;
      const known = subs.get(hook.data.webhook_id);
      const next = evolveSubscription(known, hook, group);
      if (next) {
        if (next.status === 'active') subs.set(next.webhook_id, next);
        else subs.delete(next.webhook_id);
        batch.subscriptions.push(next);
      }
      if (hook.type === 'webhook.redelivery_requested')
        batch.redeliver.push({
          request_id: recorded.id,
          webhook_id: hook.data.webhook_id,
          ...(hook.data.event_ids && { event_ids: hook.data.event_ids }),
          ...(hook.data.since !== undefined && { since: hook.data.since }),
        });
    }
    const event = decodeEvent(recorded);
    if (event) {
      lookup.observe(event);
      const needs = needsOf(event.type);
      if (needs.derives && subs.size > 0) {
        const agentId = 'agent_id' in event.data ? event.data.agent_id : undefined;
        const intent =
          needs.intent && event.type === 'intent.confirmed'
            ? await lookup.intent(event.data.agent_id, event.data.intent_id)
            : undefined;
        const groupId = needs.group && agentId ? await lookup.groupOf(agentId) : undefined;
        for (const pe of derivePublicEvents(
          { id: recorded.id, event },
          { ...(intent && { intent }), ...(groupId && { groupId }) },
        )) {
          const payload = stringifyJson(pe.payload);
          for (const sub of subs.values())
            if (receives(sub, pe))
              batch.deliveries.push({
                webhook_id: sub.webhook_id,
                event_id: pe.eventId,
                event: pe.kind,
                payload,
                created_at: now(),
              });
        }
      }
      if (event.type === 'intent.confirmed' || event.type === 'intent.failed')
        lookup.settled(event.data.intent_id);
    }
    batch.to = recorded.position;
    const size = batch.deliveries.length + batch.subscriptions.length + batch.redeliver.length;
    if (size >= MAX_BATCH) await flush();
    else if (size > 0 && !scheduled) {
      scheduled = true;
      setImmediate(() => void flush());
    } else if (size === 0 && !scheduled && !checkpointDue)
      checkpointDue = setTimeout(() => void flush(), CHECKPOINT_ONLY_MS).unref();
    if (failure) throw failure;
  };

  const following = store.subscribeToAll({ ...(committed && { from: committed }), onEvent });
  return {
    done: following.done,
    stop: async () => {
      await following.stop();
      await flush();
    },
  };
}
