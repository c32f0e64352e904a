/**
 * The whole delivery worker as a line of the webhooks bench: each body is a delivery job on BullMQ
 * (Redis), taken by the worker (64 in flight), signed with the subscription's secret (opened from
 * the key vault), sent by the SSRF-guarded sender, and its attempt recorded in the PostgreSQL delivery
 * log, as `npm run start:delivery` does. A delivery counts once its attempt is recorded.
 */
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_DELIVERY_RETRY,
  Deliverer,
  KeyVault,
  enqueueDelivery,
  newSigningSecret,
  type DeliveryJob,
} from '@tokenops/shared';
import { BullJobQueue, SqlDeliveryStore, WebhookSender, serverSql } from '@tokenops/shared/adapters';
import { DATABASE_URL, REDIS_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import type { WebhookBenchLine } from './webhooks.bench';

export const deliveryWorker: WebhookBenchLine = {
  name: 'delivery worker: BullMQ job, sign, send, record the attempt (PostgreSQL)',
  async setup(receiver) {
    const schema = uniqueName('bench_hooks');
    const sql = await serverSql({ connectionString: DATABASE_URL, schema, max: 16 });
    const deliveries = await SqlDeliveryStore.open(sql, { owned: true });
    const vault = new KeyVault(randomBytes(32));
    const webhookId = `wh_${'1'.repeat(40)}`;
    await deliveries.commitRelay({
      from: undefined,
      to: { commit: 1n, prepare: 1n },
      subscriptions: [
        {
          webhook_id: webhookId,
          group_id: 'bench',
          url: receiver.url,
          event_types: ['transfer.confirmed'],
          secrets: [{ sealed: vault.seal(Buffer.from(newSigningSecret()), webhookId) }],
          status: 'active',
          created_at: Date.now(),
        },
      ],
      deliveries: [],
      redeliver: [],
    });
    const queue = new BullJobQueue<DeliveryJob>('deliver', {
      url: REDIS_URL,
      prefix: uniqueName('bench-hooks'),
      keepCompletedSeconds: 60,
    });
    const done = new Map<string, () => void>();
    const deliverer = new Deliverer({
      deliveries,
      queue,
      store: undefined as never, // a 410 would append to the log: the bench receiver answers 200
      vault,
      transport: new WebhookSender({ ca: receiver.ca, allowedPrivateHosts: [new URL(receiver.url).host] }),
      retry: DEFAULT_DELIVERY_RETRY,
      now: () => Date.now(),
      perEndpoint: 64,
    });
    const worker = queue.process(
      async (job) => {
        await deliverer.handle(job.data);
        done.get(job.data.event_id)?.();
      },
      { concurrency: 64 },
    );
    const run = randomBytes(4).toString('hex');
    let sent = 0; // each call its own event (the warm-up and the run reuse the indices)
    return {
      async deliver(body) {
        const eventId = `evt_${run}_${(sent += 1)}`;
        const finished = new Promise<void>((r) => done.set(eventId, r));
        await enqueueDelivery(
          queue,
          {
            webhook_id: webhookId,
            event_id: eventId,
            event: 'transfer.confirmed',
            payload: body,
            created_at: Date.now(),
          },
          Date.now(),
        );
        await finished;
        done.delete(eventId);
        return true;
      },
      async close() {
        await worker.close();
        await queue.obliterate();
        await queue.close();
        await deliveries.close();
        await dropSchema(schema);
      },
    };
  },
};

/** The queue alone, for the profile of the line above: the same BullMQ jobs, a handler that sends nothing. */
export const bullmqAlone: WebhookBenchLine = {
  name: 'BullMQ job alone (enqueue, take, complete; nothing sent)',
  sendsNothing: true,
  async setup() {
    const queue = new BullJobQueue<{ id: string }>('noop', {
      url: REDIS_URL,
      prefix: uniqueName('bench-noop'),
      keepCompletedSeconds: 60,
    });
    const done = new Map<string, () => void>();
    const worker = queue.process(async (job) => done.get(job.data.id)?.(), { concurrency: 64 });
    let sent = 0;
    return {
      async deliver() {
        const id = `job_${(sent += 1)}`;
        const finished = new Promise<void>((r) => done.set(id, r));
        await queue.enqueue('noop', { id }, { dedup: { id } });
        await finished;
        done.delete(id);
        return true;
      },
      async close() {
        await worker.close();
        await queue.obliterate();
        await queue.close();
      },
    };
  },
};
