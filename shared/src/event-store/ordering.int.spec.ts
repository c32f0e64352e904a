/**
 * A subscriber never skips an event whose transaction commits after a later one (design.md).
 * Writer A takes a log position and stays open; writer B takes a later position and commits; a reader
 * catches up; then A commits. Our reader must deliver both; a naive reader that keeps "the highest
 * position seen" must miss A, which shows the scenario really produces an out-of-order commit.
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { serverSql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { waitFor } from './contract';
import { LOG_START, type LogPosition } from './port';
import { PostgresEventStore } from './postgres';

interface Reader {
  /** Reads what it can see now and advances its own checkpoint; returns the event ids it delivered. */
  poll(): Promise<string[]>;
}

const schema = uniqueName('es_order');
let pool: Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  store = await PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }));
  pool = new Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}`, max: 4 });
});
afterAll(async () => {
  await store.close();
  await pool.end();
  await dropSchema(schema);
});

function ourReader(): Reader {
  let checkpoint: LogPosition = LOG_START;
  return {
    async poll() {
      const events = await store.readAll({ from: checkpoint, maxCount: 10_000 });
      if (events.length) checkpoint = events[events.length - 1]!.position;
      return events.map((e) => e.id);
    },
  };
}

function naiveReader(): Reader {
  let checkpoint = 0n;
  return {
    async poll() {
      const { rows } = await pool.query<{ event_id: string; global_position: string }>(
        'SELECT event_id, global_position FROM es_events WHERE global_position > $1 ORDER BY global_position',
        [String(checkpoint)],
      );
      if (rows.length) checkpoint = BigInt(rows[rows.length - 1]!.global_position);
      return rows.map((r) => r.event_id);
    },
  };
}

/** One append, as the store sends it, for writers that hold their transaction open themselves. */
const appendSql = `SELECT * FROM es_append_batches($1::jsonb)`;
const batch = (stream: string, id: string) =>
  JSON.stringify([
    {
      s: stream,
      x: 'any',
      e: [{ id, type: 'test.ordered', data: {}, metadata: { timestamp: new Date().toISOString() } }],
    },
  ]);

/** Runs the out-of-order commit and returns what the reader delivered, and the two ids. */
async function outOfOrderCommit(reader: Reader) {
  await reader.poll(); // start from the current end of the log
  const early = randomUUID();
  const late = randomUUID();
  const writerA = await pool.connect();
  try {
    await writerA.query('BEGIN');
    await writerA.query(appendSql, [batch(`order-${early}`, early)]);
    await store.append(`order-${late}`, [{ id: late, type: 'test.ordered', data: {} }], 'any');
    const beforeCommit = await reader.poll();
    await writerA.query('COMMIT');
    // Other suites share the server: a transaction of theirs still open holds our reader back (it
    // reads only below the oldest open transaction), so it is asked until both arrive, or 10 s pass.
    const afterCommit = await reader.poll();
    const deadline = Date.now() + 10_000;
    while (![...beforeCommit, ...afterCommit].includes(late) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      afterCommit.push(...(await reader.poll()));
    }
    const [{ a, b }] = (
      await pool.query<{ a: string; b: string }>(
        'SELECT (SELECT global_position FROM es_events WHERE event_id = $1) a, (SELECT global_position FROM es_events WHERE event_id = $2) b',
        [early, late],
      )
    ).rows as [{ a: string; b: string }];
    return { delivered: [...beforeCommit, ...afterCommit], early, late, positions: [BigInt(a), BigInt(b)] };
  } finally {
    writerA.release();
  }
}

describe('a transaction that commits after a later one', () => {
  it('really commits out of order: the early writer holds the lower position', async () => {
    const { positions } = await outOfOrderCommit(ourReader());
    expect(positions[0]!).toBeLessThan(positions[1]!);
  });

  it('is delivered by our reader, in transaction order, exactly once', async () => {
    const { delivered, early, late } = await outOfOrderCommit(ourReader());
    expect(delivered).toEqual([early, late]);
  });

  it('is skipped by a naive "highest position seen" reader (the scenario bites)', async () => {
    const { delivered, early, late } = await outOfOrderCommit(naiveReader());
    expect(delivered).toEqual([late]);
    expect(delivered).not.toContain(early);
  });
});

describe('concurrent writers whose transactions commit in random order', () => {
  it('reach a live subscriber exactly once each', async () => {
    const writers = 8;
    const perWriter = 25;
    const ids = new Set<string>();
    const seen: string[] = [];
    const sub = store.subscribeToAll({
      from: (await store.readAll({ maxCount: 1_000_000 })).at(-1)?.position,
      onEvent: (e) => void seen.push(e.id),
    });
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        const client = await pool.connect();
        try {
          for (let i = 0; i < perWriter; i++) {
            const id = randomUUID();
            ids.add(id);
            await client.query('BEGIN');
            await client.query(appendSql, [batch(`writer-${w}`, id)]);
            await new Promise((r) => setTimeout(r, Math.random() * 8));
            await client.query('COMMIT');
            await client.query(`SELECT pg_notify('es_events', '')`);
          }
        } finally {
          client.release();
        }
      }),
    );
    await waitFor(() => seen.length >= ids.size, 15_000);
    await sub.stop();
    expect(seen).toHaveLength(ids.size);
    expect(new Set(seen)).toEqual(ids);
  });
});
