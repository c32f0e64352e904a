/**
 * The rate limits, counted with rate-limiter-flexible: in Redis when several API instances share
 * them, in process for the embedded default. Per agent (60 requests a minute by default): every
 * answer to an authenticated agent carries the RateLimit headers (IETF draft: limit, remaining,
 * seconds to reset). Per client address, for failed authentication (30 a minute by default). A
 * refusal is 429 rate_limited with Retry-After.
 */
import type Redis from 'ioredis';
import type { Request, Response } from 'express';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ServiceError, unavailableOr } from '@tokenops/shared';

export class AgentRateLimit {
  private constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly perMinute: number,
  ) {}

  static inProcess(perMinute: number): AgentRateLimit {
    return new AgentRateLimit(new RateLimiterMemory({ points: perMinute, duration: 60 }), perMinute);
  }

  static shared(redis: Redis, prefix: string, perMinute: number): AgentRateLimit {
    return new AgentRateLimit(
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:ratelimit`,
        points: perMinute,
        duration: 60,
      }),
      perMinute,
    );
  }

  /** Counts one request of the agent; throws rate_limited once the minute's allowance is spent. */
  async consume(agentId: string, res: Response): Promise<void> {
    let result: RateLimiterRes;
    try {
      result = await this.limiter.consume(agentId);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw unavailableOr('the rate limiter (Redis)', err); // 503
      this.headers(res, err);
      const retryAfterSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new ServiceError(
        'rate_limited',
        `More than ${this.perMinute} requests in a minute. Retry after ${retryAfterSeconds} s.`,
        undefined,
        retryAfterSeconds,
      );
    }
    this.headers(res, result);
  }

  private headers(res: Response, r: RateLimiterRes): void {
    res.setHeader('RateLimit-Limit', String(this.perMinute));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
    res.setHeader('RateLimit-Reset', String(Math.ceil(r.msBeforeNext / 1000)));
    res.setHeader('RateLimit-Policy', `${this.perMinute};w=60`);
  }
}

/**
 * The limit on failed authentication, per client address, before anything is looked up: requests
 * whose key, invitation code, wallet signature or operator token is missing or wrong. Each such
 * failure counts one; past `perMinute` failures in a minute, the address is answered 429
 * rate_limited (with Retry-After) for the rest of the minute on the routes that authenticate, before
 * any lookup: a guessing run costs the service at most `perMinute` lookups a minute per address.
 * Registration is the exception: a well-formed invitation code is looked up past the limit (a right
 * one registers whatever others at that address did; a wrong one is answered 429 all the same).
 * Requests that authenticate are not counted here (they have the per-agent limit), so agents behind
 * one address are not refused for being many. In Redis across instances (server), in process
 * (embedded). The counter's key carries the limit, so instances configured alike share one count.
 */
export class ClientRateLimit {
  private constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly perMinute: number,
  ) {}

  static inProcess(perMinute: number): ClientRateLimit {
    return new ClientRateLimit(new RateLimiterMemory({ points: perMinute, duration: 60 }), perMinute);
  }

  static shared(redis: Redis, prefix: string, perMinute: number): ClientRateLimit {
    return new ClientRateLimit(
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:auth-failures:${perMinute}`,
        points: perMinute,
        duration: 60,
      }),
      perMinute,
    );
  }

  /** Throws rate_limited when the client has used up its failures this minute (before costly work). */
  async check(req: Request): Promise<void> {
    // The counter's store unreachable: decide without it (the request meets the store's outage anyway).
    const state = await this.limiter.get(clientAddress(req)).catch(() => null);
    if (state && state.consumedPoints >= this.perMinute) throw this.refusal(state.msBeforeNext);
  }

  /** Counts one failed authentication; the refusal to answer instead, once the client is over the limit. */
  async failed(req: Request): Promise<ServiceError | undefined> {
    try {
      await this.limiter.consume(clientAddress(req));
      return undefined;
    } catch (err) {
      return err instanceof RateLimiterRes ? this.refusal(err.msBeforeNext) : undefined;
    }
  }

  private refusal(msBeforeNext: number): ServiceError {
    const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return new ServiceError(
      'rate_limited',
      `More than ${this.perMinute} failed authentications from this address in a minute. Retry after ${retryAfterSeconds} s.`,
      undefined,
      retryAfterSeconds,
    );
  }
}

/** The client's address: the peer, or the one the trusted proxies name (Express's `trust proxy`). */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/** The answers that are a failed authentication: counted per client address. */
export const AUTHENTICATION_FAILURES: ReadonlySet<string> = new Set([
  'unauthorized',
  'invalid_invitation_code',
]);
