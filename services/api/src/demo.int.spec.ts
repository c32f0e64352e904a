/**
 * The first start's demo, and what a restart prints: the invitation code while it still registers,
 * and once it is redeemed, that it is, and how to get an agent key or a new invitation. Its x402
 * resource asks what docs/x402.md shows a newcomer.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent as Dispatcher, fetch as undiciFetch } from 'undici';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { enactAs, killKey } from '@tokenops/shared';
import { createLogger } from '@tokenops/shared/process';
import { localCertificates, type TlsMaterial } from '@tokenops/x402-local';
import { demoInstructions, ensureDemo, operatorOf, startDemoResource, type DemoResource } from './demo';
import { startEmbedded, type Embedded } from './embedded';
import { databaseTemplate } from '@tokenops/testing/database-template';

let service: Embedded;
let dataDir: string;
let tls: TlsMaterial;
const origins = new Set<string>();
let resource: DemoResource | undefined;
beforeAll(async () => {
  // As `npm start` does: the chain over JSON-RPC, the demo resource's certificate and origin allowed.
  tls = await localCertificates({ addresses: ['127.0.0.1'] });
  service = await startEmbedded({
    port: 0,
    databaseTemplate: await databaseTemplate(),
    keyEncryptionKey: randomBytes(32),
    jwtSecret: randomBytes(32),
    logger: createLogger('silent'),
    chainRpcPort: 0,
    x402Guard: { ca: tls.ca, allowedOrigins: origins },
  });
  dataDir = mkdtempSync(join(tmpdir(), 'tokenops-demo-'));
}, 60_000);
afterAll(async () => {
  await resource?.close();
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What `npm start` prints, on this start. */
const started = async () => {
  const { demo, created, invitation } = await ensureDemo(service.ctx, dataDir);
  return {
    demo,
    created,
    text: demoInstructions(service.url, demo, created, service.ctx.chain.tokens, invitation),
  };
};

it('prints the invitation while it registers, and once redeemed says so and how to get a key or a new code', async () => {
  const first = await started();
  expect(first.created).toBe(true);
  expect(first.text).toContain(`"invitation_code":"${first.demo.invitation_code}"`);
  // The history line says what the history lists.
  expect(first.text).toMatch(
    /the history \(it lists transfers and swaps; deposits and withdrawals show in the balance\)/,
  );

  // A restart before anyone registered: the same code, still usable.
  const again = await started();
  expect(again.created).toBe(false);
  expect(again.text).toContain(`"invitation_code":"${first.demo.invitation_code}"`);

  const registered = await fetch(`${service.url}/api/v1/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invitation_code: first.demo.invitation_code }),
  });
  expect(registered.status).toBe(200);

  // A restart after: the spent code is not offered; the way to a key and to a new invitation is.
  const restarted = await started();
  expect(restarted.text).not.toContain(first.demo.invitation_code);
  expect(restarted.text).toContain('The demo invitation is redeemed');
  const cli = `npx tokenops --url ${service.url} --keypair ${first.demo.operator_keypair}`;
  expect(restarted.text).toContain(`${cli} rotate-key ${first.demo.agent_wallet_pda}`);
  expect(restarted.text).toContain(`${cli} invite ${first.demo.group_config_pda}`);
}, 60_000);

it('runs a paid x402 resource and prints the curl that buys it; the agent pays it, and no other loopback origin is reached', async () => {
  const { demo, invitation } = await ensureDemo(service.ctx, dataDir);
  resource = await startDemoResource(service.ctx, service.chainRpcUrl!, demo.x402_payee!, tls, (o) =>
    origins.add(o),
  );
  const text = demoInstructions(service.url, demo, false, service.ctx.chain.tokens, invitation, resource.url);
  const body = { url: resource.url, max_amount: 0.1, idempotency_key: 'demo-5' };
  expect(text).toContain(`/api/v1/x402/pay`);
  expect(text).toContain(JSON.stringify(body));

  // The demo agent (registered above, its key rotated here) pays it as the printed curl does.
  const agent = demo.agent_wallet_pda;
  // As `tokenops rotate-key` does: the old key killed, the new one proposed and signed with the keypair.
  await killKey(service.ctx, demo.operator_wallet, agent);
  const { api_key } = (await enactAs(
    service.ctx,
    operatorOf(demo),
    demo.group_config_pda,
    'agent.issue_key',
    {
      agent,
    },
  )) as { api_key: string };
  const pay = (b: Record<string, unknown>) =>
    fetch(`${service.url}/api/v1/x402/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${api_key}` },
      body: JSON.stringify(b),
    });
  const paid = await pay(body);
  expect(paid.status).toBe(200);
  expect(await paid.json()).toMatchObject({ status: 'confirmed', amount: 0.05, pay_to: demo.x402_payee });

  // Only the demo resource's origin is allowed: another port of the same loopback address is refused.
  const other = await pay({
    ...body,
    url: `https://127.0.0.1:${new URL(service.chainRpcUrl!).port}/`,
    idempotency_key: 'x',
  });
  expect(other.status).toBe(400);
  expect(((await other.json()) as { error: string }).error).toBe('x402_url_refused');
}, 60_000);

/** The value a placeholder (`"<...>"`) of docs/x402.md's block stands for: any text. */
const placeholders = (value: unknown): unknown =>
  typeof value === 'string' && /^<.+>$/.test(value)
    ? expect.any(String)
    : Array.isArray(value)
      ? value.map(placeholders)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, placeholders(v)]))
        : value;

it('the demo resource asks exactly what docs/x402.md shows (the local USDC mint, the price in base units, the network)', async () => {
  const { demo } = await ensureDemo(service.ctx, dataDir);
  const doc = readFileSync(join(__dirname, '../../../docs/x402.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## A resource of your own'));
  const block = /```json\n([\s\S]+?)\n```/.exec(section)![1]!;
  const asked = await undiciFetch(resource!.url, { dispatcher: new Dispatcher({ connect: { ca: tls.ca } }) });
  expect(asked.status).toBe(402);
  const required = decodePaymentRequiredHeader(asked.headers.get('payment-required')!);
  expect(required).toEqual(placeholders(JSON.parse(block)));
  const usdc = service.ctx.chain.tokens.find((t) => t.symbol === 'USDC')!;
  expect(required.accepts[0]).toMatchObject({ asset: usdc.mint, payTo: demo.x402_payee });
  expect(required.resource.url).toBe(resource!.url);
  // The configuration's constants are these (the block above it in the docs).
  expect(section).toContain(`const USDC = '${usdc.mint}';`);
  expect(section).toContain(`const NETWORK = '${required.accepts[0]!.network}';`);
  expect(section).toContain(`price: { amount: '${required.accepts[0]!.amount}', asset: USDC }`);
});
