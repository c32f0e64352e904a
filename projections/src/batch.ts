/**
 * Applies the projection to a store in batches: the writes of consecutive events are gathered and
 * committed together, with the checkpoint of the last one, in one atomic commit (one Lua call on
 * Redis instead of one per event). A batch is committed when it is large, or as soon as the events at
 * hand are done (the next turn of the event loop, when the subscription waits for the log).
 *
 * `project` reads documents it wrote; while they wait in a batch it reads them here. The writer is
 * the only one of its store (the projector's lease), so what it wrote stays cached after the commit.
 */
import type { LogPosition, ReadModelOp, ReadModelStore, RecordedEvent, Token } from '@tokenops/shared';
import { PROJECTION, project } from './agent-views';

const MAX_OPS = 2_000;
const MAX_CACHED = 100_000;

export class BatchedProjection {
  /** Documents written (JSON text) or deleted (null): pending in the batch, or cached after it. */
  private readonly docs = new Map<string, string | null>();
  private pending: ReadModelOp[] = [];
  private at: LogPosition | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private failure: unknown;

  /** What `project` reads through: the batch first, then the store. */
  private readonly reader: Pick<ReadModelStore, 'get'> = {
    get: async <T>(key: string): Promise<T | undefined> => {
      if (this.docs.has(key)) {
        const text = this.docs.get(key);
        return text === null || text === undefined ? undefined : (JSON.parse(text) as T);
      }
      return this.store.get<T>(key);
    },
  };

  constructor(
    private readonly store: ReadModelStore,
    private readonly tokens: readonly Token[],
    /** Told once when a commit fails (the store went away, a guard refused): the batch is lost. */
    private readonly onFailure: (err: unknown) => void = () => undefined,
  ) {}

  async apply(event: RecordedEvent): Promise<void> {
    if (this.failure) throw this.failure;
    const ops = await project(event, this.reader as ReadModelStore, this.tokens);
    for (const op of ops) {
      if (op.op === 'set') this.docs.set(op.key, JSON.stringify(op.value));
      else if (op.op === 'del') this.docs.set(op.key, null);
    }
    this.pending.push(...ops);
    this.at = event.position;
    if (this.pending.length >= MAX_OPS) await this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush().catch(() => undefined); // kept in `failure`: the next event throws it
      });
    }
  }

  /** Commits what is pending; resolves once it (and any commit before it) has landed. */
  async flush(): Promise<void> {
    for (;;) {
      const inFlight = this.flushing;
      await inFlight;
      if (inFlight === this.flushing) break; // else another flush started meanwhile: wait for it too
    }
    if (this.failure) throw this.failure;
    if (!this.at) return;
    const ops = this.pending;
    const at = this.at;
    this.pending = [];
    this.at = undefined;
    this.flushing = this.store.commit(PROJECTION, at, ops).then(
      () => {
        if (this.pending.length === 0 && this.docs.size > MAX_CACHED) this.docs.clear();
      },
      (err: unknown) => {
        this.failure = err;
        this.onFailure(err);
      },
    );
    await this.flushing;
    if (this.failure) throw this.failure;
  }
}
