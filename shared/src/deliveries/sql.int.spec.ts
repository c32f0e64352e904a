/**
 * The SQL delivery store on a PostgreSQL server and on PGlite: the delivery store's contract
 * (contract.ts) on both, then what is the SQL adapter's own: its tables are created when missing and
 * kept when there, by stores opened at once on one database.
 */
import { embeddedSql, serverSql, type Sql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { databaseTemplate } from '@tokenops/testing/database-template';
import { deliveryStoreContract } from './contract';
import type { NewDelivery } from './port';
import { SqlDeliveryStore } from './sql';

const opened: Sql[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const sql of opened) await sql.close();
  for (const schema of schemas) await dropSchema(schema);
});

/** A database of its own on the server: a fresh schema each time. */
async function serverDatabase(): Promise<Sql> {
  const schema = uniqueName('deliveries');
  schemas.push(schema);
  const sql = await serverSql({ connectionString: DATABASE_URL, schema });
  opened.push(sql);
  return sql;
}

// A PGlite database takes a second or more to start: the contract's stores share one, emptied before
// each (its tables dropped; the store creates them again).
let pglite: Sql | undefined;
async function emptiedPglite(): Promise<Sql> {
  if (!pglite) {
    pglite = await embeddedSql(undefined, await databaseTemplate());
    opened.push(pglite);
  }
  await pglite.exec(
    'DROP TABLE IF EXISTS webhook_relay, webhook_subscriptions, webhook_deliveries, webhook_attempts',
  );
  return pglite;
}

// The stores do not own their connection (as when it is shared with the event store): closing one
// leaves the database to the next.
deliveryStoreContract('SQL on a PostgreSQL server', async () =>
  SqlDeliveryStore.open(await serverDatabase()),
);
deliveryStoreContract('SQL on PGlite (embedded)', async () => SqlDeliveryStore.open(await emptiedPglite()));

const databases: [string, () => Promise<Sql>][] = [
  ['PostgreSQL server', serverDatabase],
  ['PGlite (embedded)', emptiedPglite],
];

describe.each(databases)('the SQL delivery store on %s', (_name, open) => {
  it('creates its tables when missing and keeps what they hold when opened again, by several stores at once', async () => {
    const sql = await open();
    const first = await SqlDeliveryStore.open(sql);
    const d: NewDelivery = {
      webhook_id: 'wh-1',
      event_id: 'e-1',
      event: 'transfer.confirmed',
      payload: '{}',
      created_at: 2_000,
    };
    await first.commitRelay({
      from: undefined,
      to: { commit: 3n, prepare: 2n },
      subscriptions: [],
      deliveries: [d],
      redeliver: [],
    });
    const again = await Promise.all([SqlDeliveryStore.open(sql), SqlDeliveryStore.open(sql)]);
    for (const store of again) {
      expect(await store.relayCheckpoint()).toEqual({ commit: 3n, prepare: 2n });
      expect(await store.pending(10)).toEqual([{ ...d, attempts: 0 }]);
    }
  });
});
