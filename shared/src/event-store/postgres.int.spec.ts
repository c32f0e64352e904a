import { embeddedSql, serverSql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '../testing/servers';
import { eventStoreContract } from './contract';
import { PostgresEventStore } from './postgres';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

eventStoreContract('PostgreSQL server', async () => {
  const schema = uniqueName('es');
  schemas.push(schema);
  return PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }), {
    idlePollMs: 5_000,
  });
});

eventStoreContract('PGlite (embedded)', async () =>
  PostgresEventStore.open(await embeddedSql(), { idlePollMs: 5_000 }),
);
