/**
 * Jest global setup of the `topology` project: starts the server topology once (two API instances,
 * two executors, one projector, the chain node, as separate processes) and hands its addresses to
 * the test workers through the environment; the harness then runs the agent end-to-end suite on it.
 */
import { HARNESS_UNAUTHENTICATED_LIMIT } from './harness';
import { Topology } from './topology';

export default async function setup(): Promise<void> {
  const topology = await new Topology({
    apis: 2,
    executors: 2,
    projectors: 1,
    // Every test client is 127.0.0.1: the suites share the allowance of failed authentications.
    env: {
      CHECK_RESPONSES: 'true',
      UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(HARNESS_UNAUTHENTICATED_LIMIT),
    },
  }).start();
  (globalThis as { topology?: Topology }).topology = topology;
  process.env.TOKENOPS_STACK = JSON.stringify({
    apis: topology.apis.map((p) => p.url),
    env: topology.env,
    logDir: topology.logDir,
  });
  console.log(`\nserver topology up (logs in ${topology.logDir})`);
}
