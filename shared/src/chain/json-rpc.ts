/**
 * A lean Solana JSON-RPC client over HTTP: undici's pooled, kept-alive connections, one POST per
 * call, the answer's `result` as the node wrote it. The RPC chain adapter calls a handful of methods
 * whose answers it reads field by field, so it needs no schema validation of every answer (web3.js's
 * `Connection` validates each with superstruct and sends it with `fetch`: together about three times
 * the CPU of a call, measured in docs/performance.md).
 *
 * A node that does not answer, or answers with an HTTP error (a provider's 429 or 503), is
 * DependencyUnavailable; an answer with a JSON-RPC error is an RpcError with the node's code,
 * message and data (a failed preflight: -32002, with the transaction's error and logs).
 */
import { Pool } from 'undici';
import { DependencyUnavailable, reaching } from '../errors/unavailable';

export const CHAIN = 'the chain (Solana JSON-RPC)';

/** Whether a failure's message says the chain node did not answer (a job's failed reason, as stored). */
export const chainWasAway = (message: string): boolean => message.startsWith(`${CHAIN} is unavailable`);

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export interface JsonRpcOptions {
  /** Connections kept open to the node (each carries one call at a time). */
  connections?: number;
  /** How long a call waits for the node's answer before it counts as not answered. */
  timeoutMs?: number;
}

/** What calls a node: one client (JsonRpcClient), or several nodes of one cluster (RpcNodes). */
export interface RpcCaller {
  call<T>(method: string, params?: unknown[]): Promise<T>;
}

export class JsonRpcClient implements RpcCaller {
  private readonly pool: Pool;
  private readonly path: string;
  private id = 0;

  constructor(url: string, options: JsonRpcOptions = {}) {
    const target = new URL(url);
    this.path = `${target.pathname}${target.search}`;
    const timeout = options.timeoutMs ?? 30_000;
    this.pool = new Pool(target.origin, {
      connections: options.connections ?? 32,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      // A node that does not take the connection counts as not answering within the timeout too
      // (undici's own bound, 10 s, stays the longest).
      connectTimeout: Math.min(timeout, 10_000),
    });
  }

  /** Calls `method` with `params`; resolves to its result. `timeoutMs`: this call's, shorter than the client's. */
  async call<T>(method: string, params: unknown[] = [], timeoutMs?: number): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params });
    const answer = await reaching(CHAIN, async () => {
      const response = await this.pool.request({
        path: this.path,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        ...(timeoutMs !== undefined && { headersTimeout: timeoutMs, bodyTimeout: timeoutMs }),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200)
        throw new DependencyUnavailable(CHAIN, `HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
      return text;
    });
    let parsed: { result?: T; error?: { code: number; message: string; data?: unknown } };
    try {
      parsed = JSON.parse(answer) as typeof parsed;
    } catch {
      throw new DependencyUnavailable(CHAIN, `an answer that is not JSON: ${answer.slice(0, 200)}`);
    }
    if (parsed.error) throw new RpcError(parsed.error.code, parsed.error.message, parsed.error.data);
    return parsed.result as T;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
