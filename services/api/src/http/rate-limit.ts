/**
 * The rate limits, counted with rate-limiter-flexible: in Redis when several API instances share
 * them, in process for the embedded default. Every request of a limited route counts once against one
 * limit (`RateLimits`): an agent's requests per agent, the public reads and the sign-in routes per
 * client address, the operator routes per signed-in wallet. Every answer of a limited route carries
 * the RateLimit headers (IETF draft: limit, remaining, seconds to reset); a refusal is 429
 * rate_limited with Retry-After. Apart from these, failed authentication is counted per client
 * address (ClientRateLimit, 30 a minute by default).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type Redis from 'ioredis';
import type { Request, Response } from 'express';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ServiceError, unavailableOr } from '@tokenops/shared';

/** Requests a minute, for one key (an agent, a client address, a wallet). */
export class RateLimit {
  private constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly perMinute: number,
    /** Whose requests, for the refusal's message ("from this address"); empty for the agent's. */
    private readonly whose: string,
  ) {}

  static inProcess(perMinute: number, whose = ''): RateLimit {
    return new RateLimit(new RateLimiterMemory({ points: perMinute, duration: 60 }), perMinute, whose);
  }

  /** Counted in Redis under `keyPrefix`, so every API instance configured alike shares one count. */
  static shared(redis: Redis, keyPrefix: string, perMinute: number, whose = ''): RateLimit {
    return new RateLimit(
      new RateLimiterRedis({ storeClient: redis, keyPrefix, points: perMinute, duration: 60 }),
      perMinute,
      whose,
    );
  }

  /** Counts one request of `key`; throws rate_limited once the minute's allowance is spent. */
  async consume(key: string, res: Response): Promise<void> {
    let result: RateLimiterRes;
    try {
      result = await this.limiter.consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw unavailableOr('the rate limiter (Redis)', err); // 503
      this.headers(res, err);
      const retryAfterSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new ServiceError(
        'rate_limited',
        `More than ${this.perMinute} requests in a minute${this.whose}. Retry after ${retryAfterSeconds} s.`,
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

/** The limits a minute of each class of route (the settings of the same names). */
export interface RateLimitSettings {
  /** Per agent (RATE_LIMIT_PER_MINUTE). */
  agent: number;
  /** The public reads, per client address (PUBLIC_RATE_LIMIT_PER_MINUTE). */
  public: number;
  /** Sign-in and registration, per client address (SIGN_IN_RATE_LIMIT_PER_MINUTE). */
  signIn: number;
  /** The operator routes, per signed-in wallet (OPERATOR_RATE_LIMIT_PER_MINUTE). */
  operator: number;
}

/** A limit of each class of route. */
export type RateLimits = { readonly [Class in keyof RateLimitSettings]: RateLimit };

const WHOSE: { readonly [Class in keyof RateLimitSettings]: string } = {
  agent: '',
  public: ' from this address',
  signIn: ' from this address to the sign-in routes',
  operator: ' of this wallet',
};

/** The limits, each counted in this process (the embedded default). */
export const inProcessLimits = (settings: RateLimitSettings): RateLimits => ({
  agent: RateLimit.inProcess(settings.agent, WHOSE.agent),
  public: RateLimit.inProcess(settings.public, WHOSE.public),
  signIn: RateLimit.inProcess(settings.signIn, WHOSE.signIn),
  operator: RateLimit.inProcess(settings.operator, WHOSE.operator),
});

/**
 * The limits counted in Redis, shared by the API instances. The agent's counter keeps its key; the
 * others' keys carry their limit, so instances configured alike share one count.
 */
export const sharedLimits = (redis: Redis, prefix: string, settings: RateLimitSettings): RateLimits => ({
  agent: RateLimit.shared(redis, `${prefix}:ratelimit`, settings.agent, WHOSE.agent),
  public: RateLimit.shared(
    redis,
    `${prefix}:ratelimit-public:${settings.public}`,
    settings.public,
    WHOSE.public,
  ),
  signIn: RateLimit.shared(
    redis,
    `${prefix}:ratelimit-sign-in:${settings.signIn}`,
    settings.signIn,
    WHOSE.signIn,
  ),
  operator: RateLimit.shared(
    redis,
    `${prefix}:ratelimit-operator:${settings.operator}`,
    settings.operator,
    WHOSE.operator,
  ),
});

/**
 * The limit on failed authentication, per client address, before anything is looked up: requests
 * whose key, invitation code, wallet signature or operator token is missing or wrong. Each such
 * failure counts one; past `perMinute` failures in a minute, the address is answered 429
 * rate_limited (with Retry-After) for the rest of the minute on the routes that authenticate, before
 * any lookup: a guessing run costs the service at most `perMinute` lookups a minute per address.
 * Registration is the exception: a well-formed invitation code is looked up past the limit (a right
 * one registers whatever others at that address did; a wrong one is answered 429 all the same).
 * Requests that authenticate are not counted here (they have the per-agent or per-wallet limit), so
 * agents behind one address are not refused for being many. In Redis across instances (server), in process
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

/**
 * The header of this process's own calls of its API (the MCP endpoint's tools, over loopback): a
 * public read it makes for a tool call was counted at /mcp, against the agent, so the client
 * address's limit (the API's own address, shared by every agent on MCP) does not count it again. Its
 * value is random, made when the process starts, and never leaves it.
 */
export const OWN_CALL_HEADER = 'x-tokenops-own-call';
export const OWN_CALL_TOKEN = randomBytes(16).toString('base64url');
const ownCallToken = Buffer.from(OWN_CALL_TOKEN);

/** Whether the request is one this process made of its own API (OWN_CALL_HEADER). */
export function isOwnCall(req: Request): boolean {
  const given = Buffer.from(req.header(OWN_CALL_HEADER) ?? '');
  return given.length === ownCallToken.length && timingSafeEqual(given, ownCallToken);
}

/** The client's address: the peer, or the one the trusted proxies name (Express's `trust proxy`). */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/** The answers that are a failed authentication: counted per client address. */
export const AUTHENTICATION_FAILURES: ReadonlySet<string> = new Set([
  'unauthorized',
  'invalid_invitation_code',
]);
