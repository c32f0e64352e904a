import type { Context, Metrics, OutcomeWaiter, ReadModelStore } from '@tokenops/shared';
import type { AgentRateLimit } from './http/rate-limit';
import type { SendOptions } from './http/middleware';
import type { OperatorAuth } from './orchestrator/auth';

/** What the routes need; the process entry point builds it. */
export interface ApiDeps extends SendOptions {
  ctx: Context;
  views: ReadModelStore;
  waiter: OutcomeWaiter;
  operators: OperatorAuth;
  rateLimit: AgentRateLimit;
  metrics?: Metrics;
  /** Whether the service can take requests (its dependencies answered at start). */
  ready(): Promise<boolean>;
}
