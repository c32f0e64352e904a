// PGlite on a thread of its own (worker_threads), so the embedded database runs on another core than
// the HTTP server. Plain CommonJS: a worker thread does not go through ts-node. The other side is
// `embeddedSql` in sql.ts; each message is one call, answered with the same id:
//   {id, op: 'query', text, params, tx?}   -> {id, rows}
//   {id, op: 'exec', text, tx?}            -> {id}
//   {id, op: 'begin'}                      -> {id} once the transaction holds the database; its id is `id`
//   {id, op: 'commit' | 'rollback', tx}    -> {id} once the transaction has ended
//   {id, op: 'listen', channel}            -> {id}, then {notify: id, payload} for each NOTIFY
//   {id, op: 'unlisten', listener}         -> {id}
//   {id, op: 'close'}                      -> {id}
// A failure answers {id, error: {name, message, ...its fields (code, detail, ...)}}.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require('@electric-sql/pglite');

const db = workerData.dataDir ? new PGlite(workerData.dataDir) : new PGlite();
const transactions = new Map(); // begin id -> { tx, end(commit: boolean, replyTo: number) }
const listeners = new Map(); // listen id -> unlisten

const ROLLBACK = Symbol('rollback');

function failure(err) {
  const fields = {};
  for (const [k, v] of Object.entries(err ?? {}))
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v;
  return { ...fields, name: err?.name ?? 'Error', message: err?.message ?? String(err) };
}

const answer = (id, body) => parentPort.postMessage({ id, ...body });

function begin(id) {
  db.transaction(
    (tx) =>
      new Promise((resolve, reject) => {
        transactions.set(id, {
          tx,
          end: (commit, replyTo) => {
            transactions.get(id).replyTo = replyTo;
            if (commit) resolve();
            else reject(ROLLBACK);
          },
        });
        answer(id, {});
      }),
  )
    .then(
      () => answer(transactions.get(id).replyTo, {}),
      (err) => {
        const t = transactions.get(id);
        if (!t) return answer(id, { error: failure(err) }); // never began
        answer(t.replyTo, err === ROLLBACK ? {} : { error: failure(err) });
      },
    )
    .finally(() => transactions.delete(id));
}

async function handle(msg) {
  const on = msg.tx === undefined ? db : transactions.get(msg.tx)?.tx;
  switch (msg.op) {
    case 'query':
      if (!on) throw new Error('the transaction has ended');
      return { rows: (await on.query(msg.text, msg.params)).rows };
    case 'exec':
      if (!on) throw new Error('the transaction has ended');
      await on.exec(msg.text);
      return {};
    case 'listen':
      listeners.set(
        msg.id,
        await db.listen(msg.channel, (payload) => parentPort.postMessage({ notify: msg.id, payload })),
      );
      return {};
    case 'unlisten':
      await listeners.get(msg.listener)?.();
      listeners.delete(msg.listener);
      return {};
    case 'close':
      await db.close();
      return {};
    default:
      throw new Error(`unknown operation ${msg.op}`);
  }
}

parentPort.on('message', (msg) => {
  if (msg.op === 'begin') return begin(msg.id);
  if (msg.op === 'commit' || msg.op === 'rollback') {
    const t = transactions.get(msg.tx);
    if (!t) return answer(msg.id, {}); // already ended (its commit failed)
    return t.end(msg.op === 'commit', msg.id);
  }
  handle(msg).then(
    (body) => answer(msg.id, body),
    (err) => answer(msg.id, { error: failure(err) }),
  );
});

db.waitReady.then(
  () => parentPort.postMessage({ ready: true }),
  (err) => parentPort.postMessage({ ready: false, error: failure(err) }),
);
