/**
 * The connection both clients share (the agent's, client.ts, and the operator's, operator.ts): a client
 * of openapi-fetch typed by one generated document's paths, a fetch per retry policy (retry.ts), and
 * the answer read into its body or thrown as a TokenOpsError.
 */
import createClient, { type Client } from 'openapi-fetch';
import { TokenOpsError, errorOf } from './errors';
import { retryAfterMs, retryingFetch, type Fetch, type RetryOptions, type RetryPolicy } from './retry';

export interface ConnectionOptions {
  /** Retries of 429, 5xx and failed connections (retry.ts). */
  retry?: RetryOptions;
  /** Another fetch (a proxy's, a test's); the global one by default. */
  fetch?: Fetch;
}

/** The contract's root under a service URL. */
const apiRoot = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}/api/v1`;

export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The service's connection for the paths of one OpenAPI document (both documents' root is /api/v1). */
export class Connection<Paths extends object> {
  readonly api: Client<Paths, 'application/json'>;
  readonly fetch: Record<RetryPolicy, Fetch>;
  readonly root: string;

  constructor(
    baseUrl: string,
    readonly headers: Record<string, string>,
    options: ConnectionOptions,
  ) {
    const base: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.fetch = {
      all: retryingFetch(base, 'all', options.retry),
      'rate-limited': retryingFetch(base, 'rate-limited', options.retry),
    };
    this.root = apiRoot(baseUrl);
    this.api = createClient<Paths, 'application/json'>({
      baseUrl: this.root,
      headers,
      fetch: this.fetch.all,
    });
  }

  /** The request options of an operation that is not idempotent: retried on 429 only. */
  get once(): { fetch: Fetch } {
    return { fetch: this.fetch['rate-limited'] };
  }

  /** The answer's body on success; otherwise the TokenOpsError of the refusal (or of no answer). */
  async result<T>(call: Promise<Answer<T>>, idempotencyKey?: string): Promise<T> {
    const keyed = idempotencyKey === undefined ? {} : { idempotencyKey };
    let answer: Answer<T>;
    try {
      answer = await call;
    } catch (cause) {
      if (cause instanceof SyntaxError)
        throw new TokenOpsError('unexpected_response', 'the answer is not JSON', 0, { ...keyed, cause });
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new TokenOpsError('network_error', `no answer from the service: ${reason}`, 0, {
        ...keyed,
        cause,
      });
    }
    const { data, error, response } = answer;
    if (response.ok && data !== undefined) return data;
    const wait = retryAfterMs(response.headers.get('retry-after'));
    throw errorOf(response, error, wait === undefined ? undefined : Math.ceil(wait / 1000), idempotencyKey);
  }
}
