/**
 * Subscribers that name the event types they act on (`wakeFor`) read the log only when an append of
 * one of those types is announced, yet still get every event, in order, and promptly even when an
 * older transaction held the announced one back.
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { serverSql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { parseAnnouncement } from './announce';
import { waitFor } from './contract';
import { comparePositions, ofTypes, type RecordedEvent } from './port';
import { CHANNEL, PostgresEventStore } from './postgres';

const schema = uniqueName('es_announce');
let pool: Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  // The safety timer is a minute: whatever arrives here arrives because it was announced.
  store = await PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }), {
    idlePollMs: 60_000,
  });
  pool = new Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}`, max: 2 });
});
afterAll(async () => {
  await store.close();
  await pool.end();
  await dropSchema(schema);
});

async function follow(...types: string[]) {
  const seen: RecordedEvent[] = [];
  let caughtUp!: () => void;
  const ready = new Promise<void>((r) => (caughtUp = r));
  const sub = store.subscribeToAll({
    from: await store.headPosition(),
    wakeFor: ofTypes(...types),
    onCaughtUp: () => caughtUp(),
    onEvent: (e) => void seen.push(e),
  });
  await ready;
  return { seen, sub };
}

it('is told, when an append commits, how far the log reached and which types it held', async () => {
  const listener = await pool.connect();
  try {
    const payloads: string[] = [];
    listener.on('notification', (msg) => payloads.push(msg.payload ?? ''));
    await listener.query(`LISTEN ${CHANNEL}`);
    const result = await store.append(
      `announce-${randomUUID()}`,
      [
        { type: 'test.first', data: {} },
        { type: 'test.second', data: {} },
        { type: 'test.first', data: {} },
      ],
      'no_stream',
    );
    // The channel is the database's: other suites' appends are announced on it too.
    const ours = () =>
      payloads
        .map((p) => parseAnnouncement(p))
        .find((a) => a !== undefined && comparePositions(a.position, result.position) === 0);
    await waitFor(() => ours() !== undefined, 2_000);
    expect([...ours()!.types].sort()).toEqual(['test.first', 'test.second']);
    await listener.query(`UNLISTEN ${CHANNEL}`);
  } finally {
    listener.release();
  }
});

it('skips reading for appends of other types, then gets them all, in order, with the one it waits for', async () => {
  const { seen, sub } = await follow('test.wanted');
  const stream = `announce-${randomUUID()}`;
  await store.append(stream, [{ type: 'test.other', data: { n: 1 } }], 'no_stream');
  await store.append(stream, [{ type: 'test.other', data: { n: 2 } }], 0n);
  await new Promise((r) => setTimeout(r, 300));
  expect(seen).toHaveLength(0);

  await store.append(stream, [{ type: 'test.wanted', data: { n: 3 } }], 1n);
  await waitFor(() => seen.length === 3, 5_000);
  expect(seen.map((e) => [e.type, (e.data as { n: number }).n])).toEqual([
    ['test.other', 1],
    ['test.other', 2],
    ['test.wanted', 3],
  ]);
  await sub.stop();
});

it('gets an announced event promptly when an older transaction held it back and announced only its own type', async () => {
  const { seen, sub } = await follow('test.wanted');
  const early = randomUUID();
  const writer = await pool.connect();
  try {
    // A writer of another process takes the earlier place in the log and stays open.
    await writer.query('BEGIN');
    const [row] = (
      await writer.query<{ commit_position: string; prepare_position: string }>(
        `SELECT commit_position::text, prepare_position::text FROM es_append_batches($1::jsonb)`,
        [
          JSON.stringify([
            {
              s: `held-${early}`,
              x: 'any',
              e: [
                {
                  id: early,
                  type: 'test.other',
                  data: {},
                  metadata: { timestamp: new Date().toISOString() },
                },
              ],
            },
          ]),
        ],
      )
    ).rows;
    // The wanted event commits and is announced, but cannot be read yet.
    await store.append(`announce-${randomUUID()}`, [{ type: 'test.wanted', data: {} }], 'any');
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(0);

    // The older writer commits and announces its own append, of a type the subscriber skips.
    await writer.query('COMMIT');
    const position = { commit: BigInt(row!.commit_position), prepare: BigInt(row!.prepare_position) };
    await writer.query(`SELECT pg_notify($1, $2)`, [
      CHANNEL,
      `${position.commit}/${position.prepare} test.other`,
    ]);
    await waitFor(() => seen.length === 2, 5_000);
    expect(seen.map((e) => e.type)).toEqual(['test.other', 'test.wanted']);
    expect(seen[0]!.id).toBe(early);
  } finally {
    writer.release();
    await sub.stop();
  }
});

it('gets an announced event soon when what held it back was no append and announced nothing', async () => {
  const { seen, sub } = await follow('test.wanted');
  const other = await pool.connect();
  try {
    // Another client's transaction, holding a transaction id, appends nothing and will announce nothing.
    await other.query('BEGIN');
    await other.query('SELECT pg_current_xact_id()');
    await store.append(`announce-${randomUUID()}`, [{ type: 'test.wanted', data: {} }], 'any');
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(0);
    await other.query('COMMIT');
    // No announcement follows; the idle poll is a minute away: the subscriber looks again by itself.
    await waitFor(() => seen.length === 1, 5_000);
    expect(seen.map((e) => e.type)).toEqual(['test.wanted']);
  } finally {
    other.release();
    await sub.stop();
  }
});
