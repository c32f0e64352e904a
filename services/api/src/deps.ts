import type { Context, DeliveryStore, OutcomeWaiter, ReadModelStore } from '@tokenops/shared';
import type { Dependencies, Metrics, OpenStreams } from '@tokenops/shared/process';
import type { ClientRateLimit, RateLimits } from './http/rate-limit';
import type { SendOptions } from './http/operations';
import type { OperatorAuth } from './operator/sign-in/auth';

/** What the routes need; the process entry point builds it. */
export interface ApiDeps extends SendOptions {
  ctx: Context;
  views: ReadModelStore;
  waiter: OutcomeWaiter;
  operators: OperatorAuth;
  /** The rate limits: per agent, per client address (public reads, sign-in), per operator wallet. */
  limits: RateLimits;
  /** Failed authentication per client address. */
  clientLimit: ClientRateLimit;
  metrics?: Metrics;
  /** Webhook subscriptions and their delivery logs (kept by the delivery relay and workers). */
  deliveries: DeliveryStore;
  /** Serves `/metrics` on the API's port to `Authorization: Bearer <metricsToken>` only; not at all when absent. */
  metricsToken?: string;
  /**
   * How long an answer from the agent views waits for them to include the write it must show (the
   * agent's own last write, an operator's write) before answering, marked stale (state/freshness.ts).
   */
  viewWaitMs: number;
  /** Proxies in front of the API whose X-Forwarded-For names the client (0 or absent: none). */
  trustProxyHops?: number;
  /** What the service needs to take requests, by the name `/readyz` reports when it fails. */
  dependencies: Dependencies;
  /** The streamed answers (event streams, NDJSON) open now: its server's close ends them. */
  streams: OpenStreams;
}
