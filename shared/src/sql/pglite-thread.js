// PGlite on a thread of its own (worker_threads), so the embedded database uses another core than the
// HTTP server's thread. Plain CommonJS: a worker thread does not go through ts-node. The other side is
// `embeddedSqlOnThread` in pglite.ts; each message is one call, answered with the same id:
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
const { openPGlite } = require('./pglite-driver');

const ROLLBACK = Symbol('rollback');
/** Open transactions by their begin id: the driver's handle on it, and how it is ended. */
const transactions = new Map();
const listeners = new Map();

function failure(err) {
  const fields = {};
  for (const [k, v] of Object.entries(err ?? {}))
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v;
  return { ...fields, name: err?.name ?? 'Error', message: err?.message ?? String(err) };
}

const answer = (id, body) => parentPort.postMessage({ id, ...body });

async function main() {
  const { dataDir, template } = workerData;
  const sql = await openPGlite(dataDir, template ? new Blob([template]) : undefined);

  function begin(id) {
    sql
      .transaction(
        (tx) =>
          new Promise((resolve, reject) => {
            transactions.set(id, {
              tx,
              end(commit, replyTo) {
                this.replyTo = replyTo;
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
          if (!t) return answer(id, { error: failure(err) }); // it never began
          answer(t.replyTo, err === ROLLBACK ? {} : { error: failure(err) });
        },
      )
      .finally(() => transactions.delete(id));
  }

  async function handle(msg) {
    const on = msg.tx === undefined ? sql : transactions.get(msg.tx)?.tx;
    switch (msg.op) {
      case 'query':
        if (!on) throw new Error('the transaction has ended');
        return { rows: await on.query(msg.text, msg.params) };
      case 'exec':
        if (!on) throw new Error('the transaction has ended');
        await on.exec(msg.text);
        return {};
      case 'listen':
        listeners.set(
          msg.id,
          await sql.listen(msg.channel, (payload) => parentPort.postMessage({ notify: msg.id, payload })),
        );
        return {};
      case 'unlisten':
        await listeners.get(msg.listener)?.();
        listeners.delete(msg.listener);
        return {};
      case 'close':
        await sql.close();
        return {};
      default:
        throw new Error(`unknown operation ${msg.op}`);
    }
  }

  parentPort.on('message', (msg) => {
    if (msg.op === 'begin') return begin(msg.id);
    if (msg.op === 'commit' || msg.op === 'rollback') {
      const t = transactions.get(msg.tx);
      if (!t) return answer(msg.id, {}); // ended already (its commit failed)
      return t.end(msg.op === 'commit', msg.id);
    }
    handle(msg).then(
      (body) => answer(msg.id, body),
      (err) => answer(msg.id, { error: failure(err) }),
    );
  });
  parentPort.postMessage({ ready: true });
}

main().catch((err) => parentPort.postMessage({ ready: false, error: failure(err) }));
