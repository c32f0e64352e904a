/**
 * The webhook relay's commit on the SQL delivery store, on a PostgreSQL server and on PGlite: a batch
 * lands whole in one statement (checkpoint, subscriptions, deliveries, redeliveries), answers what is
 * to be sent, and lands nothing when another relay moved the checkpoint (its lease lost).
 */
import { embeddedSql, serverSql, type Sql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { databaseTemplate } from '@tokenops/testing/database-template';
import { RelayFenced, type NewDelivery, type WebhookSubscription } from './port';
import { SqlDeliveryStore } from './sql';

const opened: Sql[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const sql of opened) await sql.close();
  for (const schema of schemas) await dropSchema(schema);
});

const databases: [string, () => Promise<Sql>][] = [
  [
    'PostgreSQL server',
    async () => {
      const schema = uniqueName('deliveries');
      schemas.push(schema);
      return serverSql({ connectionString: DATABASE_URL, schema });
    },
  ],
  ['PGlite (embedded)', async () => embeddedSql(undefined, await databaseTemplate())],
];

const subscription = (webhook_id: string, status: WebhookSubscription['status']) =>
  ({
    webhook_id,
    group_id: 'group-1',
    url: `https://hooks.example/${webhook_id}`,
    event_types: ['transfer.confirmed'],
    status,
    created_at: 1_000,
  }) as unknown as WebhookSubscription;

const delivery = (webhook_id: string, event_id: string): NewDelivery => ({
  webhook_id,
  event_id,
  event: 'transfer.confirmed',
  payload: JSON.stringify({ id: event_id }),
  created_at: 2_000,
});

describe.each(databases)('the relay commit on %s', (_name, open) => {
  let store: SqlDeliveryStore;
  beforeAll(async () => {
    const sql = await open();
    opened.push(sql);
    store = await SqlDeliveryStore.open(sql);
  });

  it('lands a batch whole and answers the deliveries to send; the same ones again are not answered twice', async () => {
    const to = { commit: 10n, prepare: 5n };
    const added = await store.commitRelay({
      from: undefined,
      to,
      subscriptions: [subscription('wh-1', 'active'), subscription('wh-2', 'active')],
      deliveries: [delivery('wh-1', 'e-1'), delivery('wh-2', 'e-1')],
      redeliver: [],
    });
    expect(added).toEqual([delivery('wh-1', 'e-1'), delivery('wh-2', 'e-1')]);
    expect(await store.relayCheckpoint()).toEqual(to);
    expect((await store.activeSubscriptions()).map((s) => s.webhook_id).sort()).toEqual(['wh-1', 'wh-2']);

    // A subscription written twice in one batch: the last one stands. A delivery already there is not new.
    const next = { commit: 11n, prepare: 6n };
    const again = await store.commitRelay({
      from: to,
      to: next,
      subscriptions: [subscription('wh-2', 'active'), subscription('wh-2', 'disabled')],
      deliveries: [delivery('wh-1', 'e-1'), delivery('wh-1', 'e-2')],
      redeliver: [],
    });
    expect(again).toEqual([delivery('wh-1', 'e-2')]);
    expect((await store.activeSubscriptions()).map((s) => s.webhook_id)).toEqual(['wh-1']);
    expect(await store.relayCheckpoint()).toEqual(next);
  });

  it('sets deliveries pending again on a redelivery request and answers each with the request', async () => {
    const from = await store.relayCheckpoint();
    const to = { commit: 12n, prepare: 7n };
    const added = await store.commitRelay({
      from,
      to,
      subscriptions: [],
      deliveries: [],
      redeliver: [
        { request_id: 'r-1', webhook_id: 'wh-1', event_ids: ['e-2'] },
        { request_id: 'r-2', webhook_id: 'wh-2' },
      ],
    });
    expect(added).toEqual([
      { ...delivery('wh-1', 'e-2'), attempts: 0, redelivery: 'r-1' },
      { ...delivery('wh-2', 'e-1'), attempts: 0, redelivery: 'r-2' },
    ]);
    expect(await store.relayCheckpoint()).toEqual(to);
  });

  it('lands nothing when another relay moved the checkpoint: RelayFenced', async () => {
    const current = (await store.relayCheckpoint())!;
    const stale = { commit: current.commit - 1n, prepare: current.prepare };
    const fenced = store.commitRelay({
      from: stale,
      to: { commit: 99n, prepare: 99n },
      subscriptions: [subscription('wh-3', 'active')],
      deliveries: [delivery('wh-3', 'e-9')],
      redeliver: [],
    });
    await expect(fenced).rejects.toBeInstanceOf(RelayFenced);
    // A first commit where a checkpoint exists is fenced too.
    await expect(
      store.commitRelay({
        from: undefined,
        to: { commit: 99n, prepare: 99n },
        subscriptions: [],
        deliveries: [delivery('wh-3', 'e-9')],
        redeliver: [],
      }),
    ).rejects.toBeInstanceOf(RelayFenced);
    expect(await store.relayCheckpoint()).toEqual(current);
    expect((await store.activeSubscriptions()).map((s) => s.webhook_id)).toEqual(['wh-1']);
    expect(await store.pending(100)).not.toContainEqual(expect.objectContaining({ event_id: 'e-9' }));
  });
});
