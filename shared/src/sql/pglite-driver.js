// PGlite (PostgreSQL compiled to WebAssembly) spoken to as a driver speaks to a server: each query is
// one message of the wire protocol, sent in one call. Plain CommonJS, so that the thread PGlite runs
// on (pglite-thread.js) loads it as it is; pglite.ts gives it the `Sql` port, in this thread or on
// that one. Its types: pglite-driver.d.ts.
//
// PGlite's own `query` sends a statement in six calls into PostgreSQL (parse, describe, bind,
// describe, execute, sync), each a WebAssembly entry and a round of message parsing, and parses and
// plans it anew every time: about 0.4 ms of CPU for a one-row SELECT here, most of it not the query.
// This driver sends parse, bind, describe, execute and sync as one message, and prepares each
// statement once per database under a name of its own (PGlite has one connection, so a statement
// prepared stays prepared): the same SELECT is about 0.1 ms (`bench/pglite.ts`).
//
// Parameters are sent as text and PostgreSQL gives them their types, as `pg` does; a parameter that is
// not a string, number, bigint, boolean or null (an array, a Date, bytes, an object) goes through
// PGlite's `query`, which knows how to write those. Rows are read with PGlite's own parsers, so both
// paths answer the same values. One lock orders every use of the database: a transaction holds it from
// BEGIN to COMMIT, so no other query lands inside it.
'use strict';
const { Mutex, PGlite, parse, protocol } = require('@electric-sql/pglite');

const { serialize } = protocol;

/** Distinct statements prepared at most; past that a statement is parsed each time it is sent. */
const PREPARED_MAX = 500;
/** PostgreSQL's answer when a prepared statement's result columns changed under it (ALTER TABLE). */
const CHANGED = '0A000';

const isPlain = (p) =>
  p === null ||
  p === undefined ||
  typeof p === 'string' ||
  typeof p === 'number' ||
  typeof p === 'bigint' ||
  typeof p === 'boolean';

/** Opens PGlite in `dataDir`, or in memory (from `template`, a cluster's files, when given). */
async function openPGlite(dataDir, template) {
  const db = dataDir ? new PGlite(dataDir) : new PGlite(template ? { loadDataDir: template } : {});
  await db.waitReady;
  const lock = new Mutex();
  /** Statement text to the name it was prepared under. */
  const prepared = new Map();
  let names = 0;
  let closed = false;

  const forget = (name) =>
    db.execProtocol(Buffer.concat([serialize.close({ type: 'S', name }), serialize.sync()]), {
      syncToFs: false,
    });

  /** Parse (once per text), bind, describe, execute and sync as one message. */
  async function send(text, params, inTransaction) {
    let name = prepared.get(text);
    const preparing = name === undefined && prepared.size < PREPARED_MAX;
    if (preparing) name = `s${names++}`;
    const parts = [];
    if (name === undefined || preparing) parts.push(serialize.parse({ text, ...(name && { name }) }));
    parts.push(
      serialize.bind({
        ...(name && { statement: name }),
        values: params.map((p) => (p === null || p === undefined ? null : String(p))),
      }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    );
    try {
      const { messages } = await db.execProtocol(Buffer.concat(parts), { syncToFs: !inTransaction });
      if (preparing) prepared.set(text, name);
      return parse.parseResults(messages, db.parsers)[0].rows;
    } catch (err) {
      // A parse that failed prepared nothing; one that succeeded before a later error did.
      if (preparing) await forget(name);
      const stale = !preparing && name !== undefined && err && err.code === CHANGED;
      if (!stale) throw err;
      // Its result columns changed since it was prepared (a table altered): prepared again, and sent
      // again unless a transaction it was in is now aborted.
      prepared.delete(text);
      await forget(name);
      if (inTransaction) throw err;
      return send(text, params, false);
    }
  }

  const query = (text, params = [], inTransaction = false) =>
    params.every(isPlain) ? send(text, params, inTransaction) : db.query(text, params).then((r) => r.rows);

  const exclusive = (fn) => {
    if (closed) return Promise.reject(new Error('the embedded database is closed'));
    return lock.runExclusive(fn);
  };

  return {
    query: (text, params) => exclusive(() => query(text, params)),
    exec: (text) => exclusive(async () => void (await db.exec(text))),
    listen: (channel, onNotify) =>
      exclusive(async () => {
        const unlisten = await db.listen(channel, (payload) => onNotify(payload));
        return () => (closed ? Promise.resolve() : exclusive(() => unlisten()));
      }),
    transaction: (fn) =>
      exclusive(async () => {
        await db.exec('BEGIN');
        try {
          const result = await fn({
            query: (t, p) => query(t, p, true),
            exec: async (t) => void (await db.exec(t)),
          });
          await db.exec('COMMIT');
          return result;
        } catch (err) {
          await db.exec('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    close: () =>
      exclusive(async () => {
        closed = true;
        await db.close();
      }),
  };
}

module.exports = { openPGlite };
