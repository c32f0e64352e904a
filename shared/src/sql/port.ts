/** The SQL a PostgreSQL adapter needs (sql.ts): one port, over a server or PGlite. */
export interface Sql {
  /**
   * `name` makes it a prepared statement on a server (parsed and planned once per connection); PGlite
   * prepares every statement by its text and ignores it (pglite.ts).
   */
  query<R = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<R[]>;
  /** Runs several statements, no parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * Calls `onNotify` with the payload of each NOTIFY on `channel`, and with no payload when anything
   * may have been missed (listening started or started again); resolves to an unlisten function.
   */
  listen(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>>;
  /** Runs `fn` on one connection inside a transaction. */
  transaction<T>(fn: (tx: Pick<Sql, 'query' | 'exec'>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
