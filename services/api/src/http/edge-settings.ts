/**
 * The API's settings at the HTTP edge, read the same way by the embedded default (config.ts) and an
 * API instance of the server topology (server.ts).
 */
import { SETTINGS, type Env } from '@tokenops/shared/process';

export interface EdgeSettings {
  /** Failed authentications a client address may make in a minute (UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE). */
  unauthenticatedPerMinute: number;
  /** Requests a client address may make in a minute to the public reads (PUBLIC_RATE_LIMIT_PER_MINUTE). */
  publicPerMinute: number;
  /** Requests a client address may make in a minute to the sign-in routes (SIGN_IN_RATE_LIMIT_PER_MINUTE). */
  signInPerMinute: number;
  /** Requests a signed-in wallet may make in a minute to the operator routes (OPERATOR_RATE_LIMIT_PER_MINUTE). */
  operatorPerMinute: number;
  /** Where `/metrics` (with `/healthz`, `/readyz`) is served apart from the API: METRICS_PORT, METRICS_HOST. */
  metricsListener?: { port: number; host: string };
  /** `/metrics` on the API's own port, to this bearer token only (METRICS_TOKEN). */
  metricsToken?: string;
  /** Proxies in front of the API whose X-Forwarded-For names the client (TRUST_PROXY_HOPS). */
  trustProxyHops: number;
  /** How long an answer from the agent views waits for them to show its write (VIEW_WAIT_MS): state/freshness.ts. */
  viewWaitMs: number;
}

/** VIEW_WAIT_MS's default (the catalogue says why 2 s). */
export const VIEW_WAIT_MS = SETTINGS.VIEW_WAIT_MS.default;

export function readEdgeSettings(env: Env): EdgeSettings {
  const unauthenticatedPerMinute = env.int('UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE');
  const publicPerMinute = env.int('PUBLIC_RATE_LIMIT_PER_MINUTE');
  const signInPerMinute = env.int('SIGN_IN_RATE_LIMIT_PER_MINUTE');
  const operatorPerMinute = env.int('OPERATOR_RATE_LIMIT_PER_MINUTE');
  const metricsPort = env.int('METRICS_PORT');
  const metricsHost = env.text('METRICS_HOST');
  const metricsToken = env.raw('METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16)
    env.problems.push('METRICS_TOKEN: expected at least 16 characters (e.g. `openssl rand -hex 16`)');
  const trustProxyHops = env.int('TRUST_PROXY_HOPS');
  const viewWaitMs = env.int('VIEW_WAIT_MS');
  return {
    unauthenticatedPerMinute,
    publicPerMinute,
    signInPerMinute,
    operatorPerMinute,
    ...(metricsPort > 0 && { metricsListener: { port: metricsPort, host: metricsHost } }),
    ...(metricsToken !== undefined && { metricsToken }),
    trustProxyHops,
    viewWaitMs,
  };
}
