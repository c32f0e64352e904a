/**
 * The executor killed (-9) while an x402 payment is in flight, on a server topology of this suite's
 * own (one API, one executor, a projector, the chain node, as processes): the signed payment is on
 * record, the resource settles it while no executor lives, and the executor started again asks the
 * chain before anything is signed again. One payment, the balances exact, every unit held by someone.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigner, type LocalChain } from '@tokenops/shared';
import { openBooks } from '@tokenops/testing/conservation';
import { RECEIVER_HOST, key, startWorld, until, type World } from '@tokenops/testing/harness';
import { testCertificates } from '@tokenops/testing/tls';
import { freePort } from '@tokenops/testing/ports';
import { Topology } from '@tokenops/testing/topology';
import { info } from '@tokenops/testing/transfers';
import {
  startFacilitator,
  startPaidResource,
  type Facilitator,
  type PaidResource,
} from '@tokenops/testing/x402';

jest.setTimeout(240_000);

let topology: Topology;
let world: World;
let facilitator: Facilitator;
let resource: PaidResource & { paid: Record<string, number> };
const payee = generateSigner().address;

beforeAll(async () => {
  const tls = await testCertificates({ addresses: [RECEIVER_HOST] });
  // The resource's port, known before: the only one of RECEIVER_HOST the service may reach.
  const resourcePort = await freePort();
  topology = new Topology({
    apis: 1,
    executors: 1,
    projectors: 1,
    // The dead executor's job is taken again 2 s after it died.
    env: {
      EXECUTOR_LOCK_MS: '2000',
      CHECK_RESPONSES: 'true',
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: `${RECEIVER_HOST}:${resourcePort}`,
    },
  });
  const caFile = join(topology.logDir, 'resource-ca.pem');
  writeFileSync(caFile, tls.ca);
  topology.env.WEBHOOK_CA_FILE = caFile;
  await topology.start();
  world = await startWorld({}, info(topology));
  const chain = world.service.ctx.chain as LocalChain;
  const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!.mint;
  facilitator = await startFacilitator({ rpcUrl: world.service.rpcUrl!, fund: (a, l) => chain.fund(a, l) });
  // The handler takes 1.5 s, then the payment is settled: the executor dies in between.
  resource = await startPaidResource({
    facilitator,
    tls,
    host: RECEIVER_HOST,
    port: resourcePort,
    routes: { slow: { amount: '250000', asset: usdc, payTo: payee, delayMs: 1_500 } },
  });
  await chain.mintTo(payee, usdc, 0n, 'x402 payee');
  await world.allow({
    address: payee,
    type: 1,
    label: 'x402 payee',
    approved_amount: 100,
    ttl_seconds: 86_400,
  });
});
afterAll(async () => {
  await resource?.close();
  await facilitator?.close();
  await world?.close();
  await topology?.destroy();
});

it('the executor killed after signing, the payment settled while it was dead: no second payment once it is back', async () => {
  const books = await openBooks(world, { ownChain: true });
  const chain = world.service.ctx.chain;
  const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!.mint;
  const agent = await world.agent({}, 100);
  const body = { url: `${resource.url}/slow`, max_amount: 1, idempotency_key: key() };
  const first = world.client
    .call('POST', '/api/v1/x402/pay', { token: agent.key, body })
    .catch(() => undefined);

  // Killed once the signed payment is on record and the resource has it (its handler takes 1.5 s,
  // then it settles): the executor dies between sending the payment and reading the answer.
  await until(async () => (await world.log()).some((e) => e.type === 'x402.payment_signed'), 30_000);
  await until(() => (resource.paid.slow ?? 0) > 0, 30_000);
  expect(resource.served.slow ?? 0).toBe(0);
  const [executor] = topology.byRole('executor');
  await executor!.kill('SIGKILL');
  // The resource settles it all the same: the payment lands while no executor lives.
  await until(() => facilitator.settled.length === 1, 30_000);
  expect((await world.log()).some((e) => e.type === 'x402.payment_settled')).toBe(false);
  await executor!.restart();
  await first;

  const answer = await until(async () => {
    const r = await world.client.call<Record<string, unknown>>('POST', '/api/v1/x402/pay', {
      token: agent.key,
      body,
    });
    return r.status === 200 ? r : undefined;
  }, 60_000);
  expect(answer.body).toMatchObject({
    status: 'confirmed',
    amount: 0.25,
    protocol_fee: 0.00025,
    pay_to: payee,
  });
  expect(answer.body.tx_sig).toBe(facilitator.settled[0]);
  expect(facilitator.settled).toHaveLength(1);
  expect(resource.served.slow).toBe(1);
  expect((await chain.tokenAccount(payee, usdc)).amount).toBe(250_000n);
  expect((await chain.tokenAccount(agent.id, usdc)).amount).toBe(100_000_000n - 250_250n);
  const events = (await world.log()).map((e) => e.type);
  expect(events.filter((t) => t === 'x402.payment_signed')).toHaveLength(1);
  expect(events.filter((t) => t === 'x402.payment_settled')).toHaveLength(1);
  await books.expectBalanced();
});
