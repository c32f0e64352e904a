/**
 * PGlite (PostgreSQL compiled to WebAssembly) behind the `Sql` port, spoken to as a driver speaks to
 * a server (pglite-driver.js: one wire-protocol message per query, each statement prepared once):
 *
 *   - `embeddedSqlOnThread`: on a worker thread of its own (pglite-thread.js), what the embedded
 *     service uses: the database's work (a third of the main thread's under load, issue 28) runs on
 *     the second core instead of the thread that serves HTTP. Each call is a message each way.
 *   - `embeddedSql`: in this thread (tools that read a data folder, tests of the SQL itself).
 *
 * Both answer alike (pglite.int.spec.ts runs the same tests on both). On the thread, a transaction
 * holds the database from BEGIN to COMMIT across messages, so nothing else runs there while this
 * side gets round to its next statement: the service makes none on its hot paths (an append is one
 * statement, the webhook relay's commit too).
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { openPGlite } from './pglite-driver';
import type { Sql } from './port';

/** PGlite in `dataDir`, or in memory (from `template`, a new cluster's files, when given), in this thread. */
export function embeddedSql(dataDir?: string, template?: Blob): Promise<Sql> {
  return openPGlite(dataDir, template);
}

/** The same database, on a worker thread of its own. */
export async function embeddedSqlOnThread(dataDir?: string, template?: Blob): Promise<Sql> {
  const thread = new PGliteThread(dataDir, template && (await template.arrayBuffer()));
  await thread.ready;
  return {
    async query<R>(text: string, params?: unknown[]) {
      return (await thread.call({ op: 'query', text, params })).rows as R[];
    },
    async exec(text) {
      await thread.call({ op: 'exec', text });
    },
    async listen(channel, onNotify) {
      const id = thread.nextId();
      thread.listeners.set(id, (payload) => onNotify(payload));
      await thread.call({ op: 'listen', channel }, id);
      return async () => {
        thread.listeners.delete(id);
        await thread.call({ op: 'unlisten', listener: id });
      };
    },
    async transaction(fn) {
      const tx = thread.nextId();
      await thread.call({ op: 'begin' }, tx);
      try {
        const result = await fn({
          query: async <R>(text: string, params?: unknown[]) =>
            (await thread.call({ op: 'query', text, params, tx })).rows as R[],
          exec: async (text: string) => void (await thread.call({ op: 'exec', text, tx })),
        });
        await thread.call({ op: 'commit', tx });
        return result;
      } catch (err) {
        await thread.call({ op: 'rollback', tx }).catch(() => undefined);
        throw err;
      }
    },
    close: () => thread.close(),
  };
}

interface ThreadAnswer {
  id: number;
  rows?: unknown[];
  error?: Record<string, unknown>;
}

/**
 * The calling side of pglite-thread.js: one call a message, answered by id. The thread keeps the
 * process alive only while a call is in flight, as PGlite in this thread did.
 */
class PGliteThread {
  readonly ready: Promise<void>;
  readonly listeners = new Map<number, (payload: string) => void>();
  private readonly worker: Worker;
  private readonly calls = new Map<number, { resolve(a: ThreadAnswer): void; reject(e: Error): void }>();
  private lastId = 0;
  private closed = false;
  /** Why the thread is gone, once it is: every later call fails with it instead of waiting forever. */
  private gone: Error | undefined;

  constructor(dataDir: string | undefined, template: ArrayBuffer | undefined) {
    this.worker = new Worker(join(__dirname, 'pglite-thread.js'), { workerData: { dataDir, template } });
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.once('message', (m: { ready: boolean; error?: Record<string, unknown> }) =>
        m.ready ? resolve(void (this.calls.size === 0 && this.worker.unref())) : reject(asError(m.error!)),
      );
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (m: ThreadAnswer & { notify?: number; payload?: string }) => {
      if (m.notify !== undefined) return this.listeners.get(m.notify)?.(m.payload!);
      const call = this.calls.get(m.id);
      if (!call) return;
      this.calls.delete(m.id);
      if (this.calls.size === 0) this.worker.unref();
      if (m.error) call.reject(asError(m.error));
      else call.resolve(m);
    });
    // A thread that dies fails what waits on it; the service's readiness reports the log unreachable.
    this.worker.on('error', (err) => this.failAll((this.gone = err)));
    this.worker.on('exit', (code) =>
      this.failAll((this.gone ??= new Error(`the PGlite thread exited (${code})`))),
    );
  }

  nextId(): number {
    return ++this.lastId;
  }

  call(message: Record<string, unknown>, id = this.nextId()): Promise<ThreadAnswer> {
    if (this.closed) return Promise.reject(new Error('the embedded database is closed'));
    if (this.gone) return Promise.reject(this.gone);
    return new Promise((resolve, reject) => {
      if (this.calls.size === 0) this.worker.ref();
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.call({ op: 'close' });
    this.closed = true;
    await this.worker.terminate();
  }

  private failAll(err: Error): void {
    for (const call of this.calls.values()) call.reject(err);
    this.calls.clear();
  }
}

/** An error of the thread as this side's Error, with its fields (code, detail, ...). */
function asError(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(String(fields.message)), fields);
}
