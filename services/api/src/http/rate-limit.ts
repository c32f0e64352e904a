/**
 * The per-agent rate limit (60 requests a minute by default), counted with rate-limiter-flexible: in
 * Redis when several API instances share it, in process for the embedded default. Every answer to an
 * authenticated agent carries the RateLimit headers (IETF draft: limit, remaining, seconds to reset);
 * a refusal is 429 rate_limited with Retry-After.
 */
import type Redis from 'ioredis';
import type { Response } from 'express';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ServiceError } from '@tokenops/shared';

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
      if (!(err instanceof RateLimiterRes)) throw err; // Redis unreachable: answered as 503 upstream
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
