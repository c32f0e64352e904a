/**
 * Jest global setup of the `topology` project: starts the server topology once (two API instances,
 * two executors, one projector, the chain node, as separate processes) and hands its addresses to
 * the test workers through the environment; the harness then runs the agent end-to-end suite on it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testCertificates } from './tls';
import { HARNESS_ADDRESS_LIMIT, HARNESS_UNAUTHENTICATED_LIMIT, RECEIVER_HOST } from './harness';
import { Topology } from './topology';

export default async function setup(): Promise<void> {
  // Webhook receivers of the tests listen on 127.0.0.2 with a certificate from this CA; 127.0.0.1, in
  // all its disguises, stays refused. The suites' receivers take ports unknown now, so the entry is the
  // bare host (every port of it): no process of the topology listens on 127.0.0.2 (they take 127.0.0.1).
  // On the embedded default each suite opens its receiver's port only (`${RECEIVER_HOST}:${port}`).
  const webhookTls = await testCertificates({ addresses: [RECEIVER_HOST] });
  const topology = new Topology({
    apis: 2,
    executors: 2,
    projectors: 1,
    deliveries: 1,
    // Every test client is 127.0.0.1: the suites share the allowances per client address.
    env: {
      CHECK_RESPONSES: 'true',
      UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(HARNESS_UNAUTHENTICATED_LIMIT),
      PUBLIC_RATE_LIMIT_PER_MINUTE: String(HARNESS_ADDRESS_LIMIT),
      SIGN_IN_RATE_LIMIT_PER_MINUTE: String(HARNESS_ADDRESS_LIMIT),
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: RECEIVER_HOST,
      WEBHOOK_RETRY_BASE_MS: '100',
    },
  });
  const caFile = join(topology.logDir, 'webhook-ca.pem');
  writeFileSync(caFile, webhookTls.ca);
  topology.env.WEBHOOK_CA_FILE = caFile;
  await topology.start();
  (globalThis as { topology?: Topology }).topology = topology;
  process.env.TOKENOPS_STACK = JSON.stringify({
    apis: topology.apis.map((p) => p.url),
    env: topology.env,
    logDir: topology.logDir,
    webhookTls,
  });
  console.log(`\nserver topology up (logs in ${topology.logDir})`);
}
