/**
 * The delivery store's contract: what the webhook relay, the delivery worker and the operator's reads
 * rely on, written once. Each adapter's spec calls `deliveryStoreContract` with a factory for a fresh,
 * empty store (no checkpoint, no subscription, no delivery). Times are plain numbers (milliseconds):
 * the store keeps what it is given and reads no clock.
 */
import {
  RelayFenced,
  type AttemptRecord,
  type Delivery,
  type DeliveryStore,
  type NewDelivery,
  type RelayCommit,
  type WebhookSubscription,
} from './port';
import type { LogPosition } from '../event-store/port';

const at = (n: number): LogPosition => ({ commit: BigInt(n), prepare: BigInt(n) });

const subscription = (
  webhook_id: string,
  options: { group?: string; agent?: string; status?: WebhookSubscription['status']; created?: number } = {},
): WebhookSubscription => ({
  webhook_id,
  ...(options.agent !== undefined && { agent_id: options.agent }),
  group_id: options.group ?? 'group-1',
  url: `https://hooks.example/${webhook_id}`,
  event_types: ['transfer.confirmed', 'deposit.confirmed'],
  secrets: [{ sealed: `sealed-${webhook_id}` }, { sealed: `old-${webhook_id}`, until: 9_000 }],
  status: options.status ?? 'active',
  created_at: options.created ?? 1_000,
});

const delivery = (webhook_id: string, event_id: string, created_at = 2_000): NewDelivery => ({
  webhook_id,
  event_id,
  event: 'transfer.confirmed',
  payload: JSON.stringify({ id: event_id, amount: '1.5' }),
  created_at,
});

const attempt = (
  d: Pick<NewDelivery, 'webhook_id' | 'event_id'>,
  n: number,
  outcome: AttemptRecord['attempt']['outcome'],
  next: AttemptRecord['next'],
  extra: { at?: number; status_code?: number; error?: string } = {},
): AttemptRecord => ({
  attempt: {
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    attempt: n,
    at: extra.at ?? 10_000 + n,
    outcome,
    ...(extra.status_code !== undefined && { status_code: extra.status_code }),
    latency_ms: 12,
    ...(extra.error !== undefined && { error: extra.error }),
  },
  next,
});

const ids = (list: readonly { webhook_id: string }[]) => list.map((s) => s.webhook_id).sort();
const keys = (list: readonly NewDelivery[]) => list.map((d) => `${d.webhook_id}/${d.event_id}`);

export function deliveryStoreContract(name: string, open: () => Promise<DeliveryStore>): void {
  describe(`delivery store contract: ${name}`, () => {
    let store: DeliveryStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    /** Commits a batch from wherever the checkpoint is, to the next position. */
    let position = 0;
    const commit = async (batch: Partial<Omit<RelayCommit, 'from' | 'to'>>) =>
      store.commitRelay({
        from: await store.relayCheckpoint(),
        to: at(++position),
        subscriptions: [],
        deliveries: [],
        redeliver: [],
        ...batch,
      });
    const one = async (webhookId: string, eventId: string): Promise<Delivery> => {
      const [d] = await store.deliveriesOf([webhookId], [eventId]);
      if (!d) throw new Error(`no delivery ${webhookId}/${eventId}`);
      return d;
    };

    it('has no checkpoint at first; a first commit lands whole and answers the deliveries to send, in its order', async () => {
      expect(await store.relayCheckpoint()).toBeUndefined();
      const to = { commit: 10n, prepare: 5n };
      const added = await store.commitRelay({
        from: undefined,
        to,
        subscriptions: [subscription('wh-1'), subscription('wh-2')],
        deliveries: [delivery('wh-2', 'e-1'), delivery('wh-1', 'e-1'), delivery('wh-1', 'e-2')],
        redeliver: [],
      });
      expect(added).toEqual([delivery('wh-2', 'e-1'), delivery('wh-1', 'e-1'), delivery('wh-1', 'e-2')]);
      expect(await store.relayCheckpoint()).toEqual(to);
      expect(ids(await store.activeSubscriptions())).toEqual(['wh-1', 'wh-2']);
      expect(await store.subscription('wh-1')).toEqual(subscription('wh-1'));
      expect(await one('wh-1', 'e-2')).toEqual({
        ...delivery('wh-1', 'e-2'),
        status: 'pending',
        attempts: 0,
        updated_at: 2_000,
        log: [],
      });
      expect(keys(await store.pending(100)).sort()).toEqual(['wh-1/e-1', 'wh-1/e-2', 'wh-2/e-1']);
    });

    it('keeps a delivery once per (webhook, event id): sent again in a later batch it is neither new nor changed', async () => {
      await commit({ subscriptions: [subscription('wh-1')], deliveries: [delivery('wh-1', 'e-1')] });
      await store.recordAttempts([attempt(delivery('wh-1', 'e-1'), 1, 'delivered', { status: 'delivered' })]);
      const again = await commit({
        deliveries: [
          { ...delivery('wh-1', 'e-1', 5_000), payload: '{"other":true}' },
          delivery('wh-1', 'e-2', 5_000),
        ],
      });
      expect(again).toEqual([delivery('wh-1', 'e-2', 5_000)]);
      const kept = await one('wh-1', 'e-1');
      expect(kept).toEqual(
        expect.objectContaining({
          payload: delivery('wh-1', 'e-1').payload,
          created_at: 2_000,
          status: 'delivered',
        }),
      );
      expect(await store.deliveries('wh-1', { limit: 10 })).toHaveLength(2);
    });

    it('writes the subscriptions of a batch in order (the last of one id stands) and replaces what was there', async () => {
      await commit({ subscriptions: [subscription('wh-1'), subscription('wh-2')] });
      await commit({
        subscriptions: [
          subscription('wh-2', { status: 'disabled' }),
          subscription('wh-2'),
          { ...subscription('wh-1', { status: 'disabled' }), status_reason: 'gone' },
        ],
      });
      expect(ids(await store.activeSubscriptions())).toEqual(['wh-2']);
      expect(await store.subscription('wh-1')).toEqual({
        ...subscription('wh-1', { status: 'disabled' }),
        status_reason: 'gone',
      });
    });

    it('lands nothing when another relay moved the checkpoint: RelayFenced', async () => {
      await commit({ subscriptions: [subscription('wh-1')], deliveries: [delivery('wh-1', 'e-1')] });
      await store.recordAttempts([attempt(delivery('wh-1', 'e-1'), 1, 'delivered', { status: 'delivered' })]);
      const current = (await store.relayCheckpoint())!;
      const batch = {
        to: { commit: current.commit + 50n, prepare: current.prepare + 50n },
        subscriptions: [subscription('wh-3'), subscription('wh-1', { status: 'deleted' })],
        deliveries: [delivery('wh-3', 'e-9'), delivery('wh-1', 'e-9')],
        redeliver: [{ request_id: 'r-1', webhook_id: 'wh-1' }],
      };
      for (const from of [
        { commit: current.commit - 1n, prepare: current.prepare }, // behind
        { commit: current.commit, prepare: current.prepare - 1n }, // the commit position alone is not enough
        { commit: current.commit + 1n, prepare: current.prepare + 1n }, // ahead
        undefined, // a first commit where a checkpoint exists
      ]) {
        await expect(store.commitRelay({ ...batch, from })).rejects.toBeInstanceOf(RelayFenced);
      }
      expect(await store.relayCheckpoint()).toEqual(current);
      expect(ids(await store.activeSubscriptions())).toEqual(['wh-1']);
      expect(await store.subscription('wh-3')).toBeUndefined();
      expect(await store.deliveriesOf(['wh-1', 'wh-3'], ['e-1', 'e-9'])).toEqual([
        expect.objectContaining({ webhook_id: 'wh-1', event_id: 'e-1', status: 'delivered' }),
      ]);
      expect(await store.pending(100)).toEqual([]);
      // the relay that holds the checkpoint goes on
      expect(
        await store.commitRelay({
          ...batch,
          from: current,
          redeliver: [{ request_id: 'r-1', webhook_id: 'wh-1', event_ids: ['e-1'] }],
        }),
      ).toEqual([
        delivery('wh-3', 'e-9'),
        delivery('wh-1', 'e-9'),
        { ...delivery('wh-1', 'e-1'), attempts: 1, redelivery: 'r-1' },
      ]);
    });

    it('sets deliveries pending again on a redelivery request, attempts counted on, and answers each with the request', async () => {
      await commit({
        subscriptions: [subscription('wh-1'), subscription('wh-2')],
        deliveries: [
          delivery('wh-1', 'e-1', 2_000),
          delivery('wh-1', 'e-2', 3_000),
          delivery('wh-1', 'e-3', 4_000),
          delivery('wh-2', 'e-1', 2_000),
        ],
      });
      await store.recordAttempts([
        attempt(delivery('wh-1', 'e-1'), 1, 'delivered', { status: 'delivered' }),
        attempt(delivery('wh-1', 'e-2'), 1, 'failed', { status: 'failed', next_attempt_at: 20_000 }),
        attempt(delivery('wh-1', 'e-2'), 2, 'failed', { status: 'failed', next_attempt_at: 30_000 }),
        attempt(delivery('wh-1', 'e-3'), 1, 'delivered', { status: 'delivered' }),
        attempt(delivery('wh-2', 'e-1'), 1, 'delivered', { status: 'delivered' }),
      ]);
      const added = await commit({
        redeliver: [
          { request_id: 'r-1', webhook_id: 'wh-1', event_ids: ['e-2', 'e-unknown'] },
          { request_id: 'r-2', webhook_id: 'wh-1', since: 4_000 },
          { request_id: 'r-3', webhook_id: 'wh-2' },
        ],
      });
      expect(added).toEqual([
        { ...delivery('wh-1', 'e-2', 3_000), attempts: 2, redelivery: 'r-1' },
        { ...delivery('wh-1', 'e-3', 4_000), attempts: 1, redelivery: 'r-2' },
        { ...delivery('wh-2', 'e-1', 2_000), attempts: 1, redelivery: 'r-3' },
      ]);
      expect(await one('wh-1', 'e-2')).toEqual(
        expect.objectContaining({
          status: 'pending',
          attempts: 2,
          log: [expect.anything(), expect.anything()],
        }),
      );
      expect((await one('wh-1', 'e-2')).next_attempt_at).toBeUndefined(); // due now, not at the old retry
      expect((await one('wh-1', 'e-1')).status).toBe('delivered'); // not asked for
      expect(keys(await store.pending(100)).sort()).toEqual(['wh-1/e-2', 'wh-1/e-3', 'wh-2/e-1']);
    });

    it('reads one subscription whole, or undefined', async () => {
      const full: WebhookSubscription = {
        ...subscription('wh-a', { agent: 'agent-1', status: 'disabled' }),
        status_reason: 'the receiver answered 410 Gone',
      };
      await commit({ subscriptions: [full] });
      expect(await store.subscription('wh-a')).toEqual(full);
      expect(await store.subscription('wh-none')).toBeUndefined();
    });

    it("lists a group's subscriptions (its fleet's and its agents'), or one agent's: active and disabled, never deleted", async () => {
      await commit({
        subscriptions: [
          subscription('fleet-1', { group: 'g-1' }),
          subscription('fleet-2', { group: 'g-1', status: 'disabled' }),
          subscription('fleet-gone', { group: 'g-1', status: 'deleted' }),
          subscription('agent-1a', { group: 'g-1', agent: 'agent-1' }),
          subscription('agent-1-gone', { group: 'g-1', agent: 'agent-1', status: 'deleted' }),
          subscription('agent-2a', { group: 'g-1', agent: 'agent-2', status: 'disabled' }),
          subscription('other-fleet', { group: 'g-2' }),
          subscription('other-agent', { group: 'g-2', agent: 'agent-3' }),
        ],
      });
      expect(ids(await store.subscriptions({ groupId: 'g-1' }))).toEqual([
        'agent-1a',
        'agent-2a',
        'fleet-1',
        'fleet-2',
      ]);
      expect(ids(await store.subscriptions({ agentId: 'agent-1' }))).toEqual(['agent-1a']);
      expect(ids(await store.subscriptions({ groupId: 'g-1', agentId: 'agent-2' }))).toEqual(['agent-2a']);
      expect(await store.subscriptions({ groupId: 'g-none' })).toEqual([]);
      const byId = (a: WebhookSubscription, b: WebhookSubscription) =>
        a.webhook_id.localeCompare(b.webhook_id);
      expect((await store.subscriptions({ groupId: 'g-2' })).sort(byId)).toEqual([
        subscription('other-agent', { group: 'g-2', agent: 'agent-3' }),
        subscription('other-fleet', { group: 'g-2' }),
      ]);
      expect(ids(await store.activeSubscriptions())).toEqual([
        'agent-1a',
        'fleet-1',
        'other-agent',
        'other-fleet',
      ]);
      // deleted later: gone from the lists, still read by id
      await commit({ subscriptions: [subscription('fleet-1', { group: 'g-1', status: 'deleted' })] });
      expect(ids(await store.subscriptions({ groupId: 'g-1' }))).not.toContain('fleet-1');
      expect(ids(await store.activeSubscriptions())).not.toContain('fleet-1');
      expect((await store.subscription('fleet-1'))?.status).toBe('deleted');
    });

    it('disables a subscription at once, with its reason; not one already deleted', async () => {
      await commit({
        subscriptions: [
          subscription('wh-1'),
          subscription('wh-2'),
          subscription('wh-3', { status: 'deleted' }),
        ],
      });
      await store.disable('wh-1', 'the receiver answered 410 Gone');
      await store.disable('wh-3', 'the receiver answered 410 Gone');
      await store.disable('wh-none', 'the receiver answered 410 Gone');
      expect(await store.subscription('wh-1')).toEqual({
        ...subscription('wh-1'),
        status: 'disabled',
        status_reason: 'the receiver answered 410 Gone',
      });
      expect(ids(await store.activeSubscriptions())).toEqual(['wh-2']);
      expect(ids(await store.subscriptions({ groupId: 'group-1' }))).toEqual(['wh-1', 'wh-2']);
      expect((await store.subscription('wh-3'))?.status).toBe('deleted');
      expect(await store.subscription('wh-none')).toBeUndefined();
    });

    it("records attempts, each delivery becoming what its last attempt says, and keeps each delivery's log oldest first", async () => {
      const [a, b, c] = [delivery('wh-1', 'e-1'), delivery('wh-1', 'e-2'), delivery('wh-1', 'e-3')];
      await commit({ subscriptions: [subscription('wh-1')], deliveries: [a!, b!, c!] });
      await store.recordAttempts([]);
      await store.recordAttempts([
        attempt(a!, 1, 'failed', { status: 'failed', next_attempt_at: 11_000 }, { status_code: 503 }),
        attempt(b!, 1, 'failed', { status: 'failed', next_attempt_at: 11_500 }, { error: 'ECONNREFUSED' }),
      ]);
      expect(await one('wh-1', 'e-1')).toEqual({
        ...a,
        status: 'failed',
        attempts: 1,
        updated_at: 10_001,
        next_attempt_at: 11_000,
        log: [{ attempt: 1, at: 10_001, outcome: 'failed', status_code: 503, latency_ms: 12 }],
      });
      expect(keys(await store.pending(100)).sort()).toEqual(['wh-1/e-1', 'wh-1/e-2', 'wh-1/e-3']);

      await store.recordAttempts([
        attempt(a!, 2, 'delivered', { status: 'delivered' }, { status_code: 200 }),
        // two attempts of one delivery in one call: the later one decides
        attempt(b!, 2, 'failed', { status: 'failed', next_attempt_at: 13_000 }, { status_code: 500 }),
        attempt(b!, 3, 'failed', { status: 'dead' }, { status_code: 500 }),
        attempt(c!, 1, 'cancelled', { status: 'cancelled' }),
      ]);
      const after = await store.deliveriesOf(['wh-1'], ['e-1', 'e-2', 'e-3']);
      expect(after.map((d) => [d.event_id, d.status, d.attempts, d.next_attempt_at])).toEqual([
        ['e-1', 'delivered', 2, undefined],
        ['e-2', 'dead', 3, undefined],
        ['e-3', 'cancelled', 1, undefined],
      ]);
      expect(after[1]!.log).toEqual([
        { attempt: 1, at: 10_001, outcome: 'failed', latency_ms: 12, error: 'ECONNREFUSED' },
        { attempt: 2, at: 10_002, outcome: 'failed', status_code: 500, latency_ms: 12 },
        { attempt: 3, at: 10_003, outcome: 'failed', status_code: 500, latency_ms: 12 },
      ]);
      expect(after[1]!.updated_at).toBe(10_003);
      expect(await store.pending(100)).toEqual([]);
    });

    it('answers the unfinished deliveries: pending, or failed with a retry due; never delivered, dead, cancelled or failed for good', async () => {
      const all = ['e-pending', 'e-retry', 'e-failed', 'e-delivered', 'e-dead', 'e-cancelled'].map((e, i) =>
        delivery('wh-1', e, 2_000 + i),
      );
      await commit({ subscriptions: [subscription('wh-1')], deliveries: all });
      await store.recordAttempts([
        attempt(all[1]!, 1, 'failed', { status: 'failed', next_attempt_at: 50_000 }),
        attempt(all[2]!, 1, 'failed', { status: 'failed' }),
        attempt(all[3]!, 1, 'delivered', { status: 'delivered' }),
        attempt(all[4]!, 1, 'gone', { status: 'dead' }),
        attempt(all[5]!, 1, 'cancelled', { status: 'cancelled' }),
      ]);
      const pending = await store.pending(100);
      expect(pending.map((d) => d.event_id).sort()).toEqual(['e-pending', 'e-retry']);
      // enough to enqueue each again: what the relay gave, the attempts made, when the next is due
      expect(pending.find((d) => d.event_id === 'e-retry')).toEqual({
        ...all[1],
        attempts: 1,
        next_attempt_at: 50_000,
      });
      expect(pending.find((d) => d.event_id === 'e-pending')).toEqual(expect.objectContaining(all[0]!));
      expect(await store.pending(1)).toHaveLength(1);
    });

    it("reads a subscription's deliveries newest first, a page at a time (before a time, at most limit)", async () => {
      const times = [2_000, 3_000, 4_000, 5_000, 6_000];
      await commit({
        subscriptions: [subscription('wh-1'), subscription('wh-2')],
        deliveries: [...times.map((t) => delivery('wh-1', `e-${t}`, t)), delivery('wh-2', 'e-other', 7_000)],
      });
      await store.recordAttempts([
        attempt(delivery('wh-1', 'e-5000'), 1, 'delivered', { status: 'delivered' }, { status_code: 204 }),
      ]);
      const page = await store.deliveries('wh-1', { limit: 2 });
      expect(page.map((d) => d.event_id)).toEqual(['e-6000', 'e-5000']);
      expect(page[1]!.log).toEqual([
        { attempt: 1, at: 10_001, outcome: 'delivered', status_code: 204, latency_ms: 12 },
      ]);
      const next = await store.deliveries('wh-1', { limit: 2, before: page[1]!.created_at });
      expect(next.map((d) => d.event_id)).toEqual(['e-4000', 'e-3000']);
      const last = await store.deliveries('wh-1', { limit: 2, before: next[1]!.created_at });
      expect(last.map((d) => d.event_id)).toEqual(['e-2000']);
      expect(await store.deliveries('wh-1', { limit: 2, before: 2_000 })).toEqual([]);
      expect((await store.deliveries('wh-1', { limit: 10 })).map((d) => d.event_id)).toEqual(
        [...times].reverse().map((t) => `e-${t}`),
      );
      expect(await store.deliveries('wh-none', { limit: 10 })).toEqual([]);
    });

    it('reads the deliveries of some events to some subscriptions, those that exist, oldest first', async () => {
      await commit({
        subscriptions: [subscription('wh-1'), subscription('wh-2'), subscription('wh-3')],
        deliveries: [
          delivery('wh-2', 'e-2', 3_000),
          delivery('wh-1', 'e-2', 3_000),
          delivery('wh-1', 'e-1', 2_000),
          delivery('wh-3', 'e-1', 2_000),
          delivery('wh-1', 'e-3', 4_000),
        ],
      });
      await store.recordAttempts([
        attempt(delivery('wh-1', 'e-1'), 1, 'delivered', { status: 'delivered' }),
        attempt(delivery('wh-2', 'e-2'), 1, 'failed', { status: 'failed', next_attempt_at: 20_000 }),
      ]);
      const found = await store.deliveriesOf(['wh-1', 'wh-2', 'wh-none'], ['e-1', 'e-2', 'e-none']);
      expect(found.map((d) => `${d.webhook_id}/${d.event_id}`)).toEqual(['wh-1/e-1', 'wh-1/e-2', 'wh-2/e-2']);
      expect(found.map((d) => d.created_at)).toEqual([2_000, 3_000, 3_000]);
      expect(found.map((d) => d.log.length)).toEqual([1, 0, 1]);
      expect(found[2]).toEqual(expect.objectContaining({ status: 'failed', next_attempt_at: 20_000 }));
      expect(await store.deliveriesOf([], ['e-1'])).toEqual([]);
      expect(await store.deliveriesOf(['wh-1'], [])).toEqual([]);
    });
  });
}
