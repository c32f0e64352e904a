/**
 * Prometheus metrics (prom-client). Each process has one registry with the default Node metrics and
 * the figures of its parts: requests by route, status and error code, and their latency (API), intents
 * by outcome (executor), projection lag (projector), relay lag, leases held, queue depth and job
 * failures (executor, delivery), webhook attempts and their latency (delivery). Every process builds
 * the same catalogue (a figure a process does not produce has no series). Served on `/metrics` by the
 * process's ops routes.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobQueue } from '../queue/port';
import type { RpcNodes } from '../chain/rpc-nodes';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  httpRequests: Counter<'method' | 'route' | 'status' | 'code'>;
  intents: Counter<'outcome'>;
  outcomeLatency: Histogram<'action' | 'outcome'>;
  projectionLag: Gauge<'projection'>;
  projectionStalled: Gauge<'projection'>;
  queueDepth: Gauge<'queue' | 'state'>;
  jobFailures: Counter<'queue' | 'fate' | 'cause'>;
  leaseHeld: Gauge<'lease'>;
  relayLag: Gauge<'relay'>;
  waitingOnChain: Gauge;
  rpcNodeHealthy: Gauge<'node'>;
  rpcNodeErrors: Counter<'node'>;
  webhookAttempts: Counter<'outcome'>;
  webhookLatency: Histogram<'outcome'>;
}

export function createMetrics(processName: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ process: processName });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'tokenops_http_request_duration_seconds',
      help: 'HTTP request latency, by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    httpRequests: new Counter({
      name: 'tokenops_http_requests_total',
      help: 'HTTP requests answered, by route template, status and error code (empty when not refused)',
      labelNames: ['method', 'route', 'status', 'code'],
      registers: [registry],
    }),
    intents: new Counter({
      name: 'tokenops_intents_total',
      help: 'Intents settled, by outcome (confirmed, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    outcomeLatency: new Histogram({
      name: 'tokenops_intent_outcome_seconds',
      help: 'From an intent accepted to its outcome recorded (confirmed, failed), by action',
      labelNames: ['action', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    projectionLag: new Gauge({
      name: 'tokenops_projection_lag_events',
      help: 'Events in the log the projection has not applied yet (log positions on EventStoreDB)',
      labelNames: ['projection'],
      registers: [registry],
    }),
    projectionStalled: new Gauge({
      name: 'tokenops_projection_stalled_seconds',
      help: 'Seconds since the projection last moved while events wait for it (0 when caught up)',
      labelNames: ['projection'],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'tokenops_queue_jobs',
      help: 'Jobs in the queue, by state (waiting, active, delayed, failed)',
      labelNames: ['queue', 'state'],
      registers: [registry],
    }),
    jobFailures: new Counter({
      name: 'tokenops_job_failures_total',
      help: 'Failed job runs by fate: retry (attempts left), dead (none left: in the failed set, or a webhook delivery past its retry window), stalled (its worker stopped answering; handed on); and by cause: chain (the chain did not answer: a dead execute job of that cause runs again by itself once it answers), other',
      labelNames: ['queue', 'fate', 'cause'],
      registers: [registry],
    }),
    leaseHeld: new Gauge({
      name: 'tokenops_lease_held',
      help: 'Whether this process holds the lease (1) and runs its work, or stands by (0)',
      labelNames: ['lease'],
      registers: [registry],
    }),
    relayLag: new Gauge({
      name: 'tokenops_relay_lag_events',
      help: "Events in the log after the relay's checkpoint (log positions on EventStoreDB), read by every process of the relay's kind",
      labelNames: ['relay'],
      registers: [registry],
    }),
    waitingOnChain: new Gauge({
      name: 'tokenops_intents_waiting_on_chain',
      help: 'Intents whose job ran out of attempts while the chain did not answer: sent or failed again once it answers',
      registers: [registry],
    }),
    rpcNodeHealthy: new Gauge({
      name: 'tokenops_rpc_node_healthy',
      help: 'Whether the Solana RPC node (by host and port) is healthy (1) or set aside (0): it failed, timed out or lags',
      labelNames: ['node'],
      registers: [registry],
    }),
    rpcNodeErrors: new Counter({
      name: 'tokenops_rpc_node_errors_total',
      help: 'Calls a Solana RPC node (by host and port) did not answer: refused, timed out, an HTTP error',
      labelNames: ['node'],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'tokenops_webhook_attempts_total',
      help: 'Webhook delivery attempts recorded, by outcome (delivered, failed, gone, cancelled)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    webhookLatency: new Histogram({
      name: 'tokenops_webhook_attempt_duration_seconds',
      help: 'Webhook delivery attempt latency (connect to response), by outcome',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}

/**
 * The RPC nodes' health into `tokenops_rpc_node_healthy` (sampled every second) and each call a node
 * did not answer into `tokenops_rpc_node_errors_total`, by the node's host and port; returns the stop.
 */
export function watchRpcNodes(metrics: Metrics, nodes: RpcNodes): () => void {
  const sample = () => {
    for (const n of nodes.report()) metrics.rpcNodeHealthy.set({ node: n.node }, n.healthy ? 1 : 0);
  };
  for (const n of nodes.report()) metrics.rpcNodeErrors.inc({ node: n.node }, 0);
  sample();
  nodes.onFailure((node) => metrics.rpcNodeErrors.inc({ node }));
  const timer = setInterval(sample, 1_000);
  timer.unref();
  return () => clearInterval(timer);
}

/** Samples a queue's depth by state into `tokenops_queue_jobs` every 2 s; returns the stop. */
export function watchQueueDepth(metrics: Metrics, queue: Pick<JobQueue<unknown>, 'counts'>, name: string) {
  const timer = setInterval(() => {
    queue.counts().then(
      (c) => {
        for (const [state, n] of Object.entries(c)) metrics.queueDepth.set({ queue: name, state }, n);
      },
      () => undefined,
    );
  }, 2_000);
  timer.unref();
  return () => clearInterval(timer);
}
