/**
 * A dependency that did not answer: the log's database, Redis, the chain node. Adapters raise it (the
 * HTTP edge answers 503 service_unavailable with Retry-After, nothing done); nothing above the
 * adapters knows a client library's error codes.
 */
export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: string,
    cause: unknown,
  ) {
    super(`${dependency} is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'DependencyUnavailable';
  }
}

/**
 * For adapters: whether a client library's error means its server did not answer (refused, reset,
 * closed, shutting down, out of connection slots), as opposed to a bug or a refused statement.
 * Covers `pg` (PostgreSQL's SQLSTATE classes 08, 53300, 57P01/57P03), ioredis, EventStoreDB's
 * client, and Node's sockets and fetch.
 */
export function isConnectionFailure(err: unknown): boolean {
  if (err instanceof DependencyUnavailable) return true;
  const e = err as { code?: string; name?: string; message?: string; cause?: unknown } | undefined;
  return (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'UND_ERR_SOCKET',
      'UND_ERR_CLOSED',
      'UND_ERR_CONNECT_TIMEOUT',
      'UND_ERR_HEADERS_TIMEOUT',
      'UND_ERR_BODY_TIMEOUT',
      '57P01',
      '57P03',
      '53300',
    ].includes(e?.code ?? '') ||
    /^08/.test(e?.code ?? '') ||
    e?.name === 'MaxRetriesPerRequestError' ||
    e?.name === 'UnavailableError' || // @eventstore/db-client
    /Connection is closed|Connection terminated|connect ECONNREFUSED|Stream isn't writeable|the database system is|fetch failed/i.test(
      e?.message ?? '',
    ) ||
    (e?.cause !== undefined && e.cause !== err && isConnectionFailure(e.cause))
  );
}

/** For adapters: a connection failure becomes DependencyUnavailable; any other error stays as it is. */
export const unavailableOr = (dependency: string, err: unknown): unknown =>
  isConnectionFailure(err) && !(err instanceof DependencyUnavailable)
    ? new DependencyUnavailable(dependency, err)
    : err;

/** For adapters: runs a call to `dependency`, its connection failures raised as DependencyUnavailable. */
export async function reaching<T>(dependency: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw unavailableOr(dependency, err);
  }
}

/**
 * For adapters: the client `target` with every method's promise guarded like `reaching` (a Redis
 * client's commands, for one), so no call site can forget it.
 */
export function guarded<T extends object>(dependency: string, target: T): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(object, args);
        return result instanceof Promise
          ? result.catch((err: unknown) => {
              throw unavailableOr(dependency, err);
            })
          : result;
      };
    },
  });
}
