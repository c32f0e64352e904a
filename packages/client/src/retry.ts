/**
 * Retries, through fetch-retry (it re-sends a clone of the same Request, so a spend's body, and with it
 * its idempotency key, is the same on every attempt). Retried: 429, every 5xx and a failed connection;
 * never another 4xx. The wait is the service's Retry-After (seconds or an HTTP date) when it gives one,
 * otherwise an exponential backoff with jitter; a Retry-After longer than the cap is not waited for:
 * the error goes back to the caller, who knows how long to wait (TokenOpsError.retryAfterSeconds).
 */
import fetchRetry from 'fetch-retry';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  maxAttempts?: number;
  /** The first backoff, doubled at each retry (default 250 ms). */
  baseDelayMs?: number;
  /** The longest wait between two attempts, Retry-After included (default 10 s). */
  maxDelayMs?: number;
}

/** Which answers may be retried: `all` for idempotent operations, `rate-limited` (429 only) for the others. */
export type RetryPolicy = 'all' | 'rate-limited';

export type Fetch = (input: Request) => Promise<Response>;

const DEFAULTS: Required<RetryOptions> = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 10_000 };

/** Retry-After in milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/ GMT$/.test(value)) return undefined; // an HTTP date ends so (RFC 9110); Date.parse takes much else
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before retry number `attempt + 1`: Retry-After if given, else backoff with jitter, capped. */
export function retryDelayMs(
  attempt: number,
  retryAfter: number | undefined,
  options: RetryOptions = {},
  random = Math.random,
): number {
  const { baseDelayMs, maxDelayMs } = { ...DEFAULTS, ...options };
  const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  const jittered = backoff / 2 + (random() * backoff) / 2;
  return Math.min(maxDelayMs, Math.max(retryAfter ?? 0, jittered));
}

const retryableStatus = (status: number, policy: RetryPolicy) =>
  status === 429 || (policy === 'all' && status >= 500);

/** `fetch` with the retries of `policy`. */
export function retryingFetch(fetch: Fetch, policy: RetryPolicy, options: RetryOptions = {}): Fetch {
  const { maxAttempts, maxDelayMs } = { ...DEFAULTS, ...options };
  return fetchRetry(fetch, {
    retries: Math.max(0, maxAttempts - 1),
    retryOn: async (attempt, error, response) => {
      if (attempt + 1 >= maxAttempts) return false;
      if (!response) return policy === 'all' && error !== null;
      if (!retryableStatus(response.status, policy)) return false;
      const wait = retryAfterMs(response.headers.get('retry-after'));
      if (wait !== undefined && wait > maxDelayMs) return false;
      await response.body?.cancel(); // this answer is dropped: free its connection
      return true;
    },
    retryDelay: (attempt, _error, response) =>
      retryDelayMs(attempt, retryAfterMs(response?.headers.get('retry-after') ?? null), options),
  });
}
