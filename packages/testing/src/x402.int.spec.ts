/**
 * The x402 test fixtures against the local chain node, with x402's own client: @x402/fetch with
 * @x402/svm's `exact` client pays a resource behind @x402/express, whose facilitator (@x402/core +
 * @x402/svm) simulates, sends and confirms over the chain node's JSON-RPC (standing in for devnet).
 * What this proves: the node answers every method x402's client and facilitator call, in their
 * shapes, and a version-0 transaction with the facilitator as fee payer and the payer as the only
 * other signer lands.
 */
import { address, createSolanaRpc, generateKeyPairSigner } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { wrapFetchWithPayment } from '@x402/fetch';
import { ExactSvmScheme as ClientScheme } from '@x402/svm/exact/client';
import { Agent, fetch as undiciFetch } from 'undici';
import { LiteSvmChain, serveChainRpc, type ChainNode } from '@tokenops/shared/adapters';
import { testCertificates } from './tls';
import { DEVNET, startFacilitator, startPaidResource, type Facilitator, type PaidResource } from './x402';

let chain: LiteSvmChain;
let node: ChainNode;
let facilitator: Facilitator;
let resource: PaidResource;
let usdc: string;
const payTo = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW';

beforeAll(async () => {
  chain = await LiteSvmChain.open({ seed: 'x402-fixtures' });
  node = await serveChainRpc(chain.node(), { port: 0, slotMs: 50 });
  usdc = chain.tokens.find((t) => t.symbol === 'USDC')!.mint;
  await chain.mintTo(payTo, usdc, 0n, 'payee account');
  facilitator = await startFacilitator({ rpcUrl: node.url, fund: (a, l) => chain.fund(a, l) });
  resource = await startPaidResource({
    facilitator,
    routes: { report: { amount: '250000', asset: usdc, payTo } },
    tls: await testCertificates(),
  });
});
afterAll(async () => {
  await resource.close();
  await facilitator.close();
  await node.close();
  await chain.close();
});

it('x402 fetch pays the resource once through the facilitator over the chain node', async () => {
  const payer = await generateKeyPairSigner();
  await chain.fund(payer.address, 1_000_000_000n);
  await chain.mintTo(payer.address, usdc, 1_000_000n, 'payer funds');
  const client = x402Client.fromConfig({
    schemes: [{ network: DEVNET, client: new ClientScheme(payer, { rpcUrl: node.url }) }],
    spendControls: { allowedAssets: [{ network: DEVNET, asset: usdc }] },
  });
  const dispatcher = new Agent({ connect: { ca: resource.ca } });
  // x402's fetch hands on a Request: its parts go to undici's fetch, which trusts the test CA.
  const tlsFetch = (async (input: string | Request, init?: RequestInit) => {
    if (typeof input === 'string') return undiciFetch(input, { ...(init as object), dispatcher });
    const body = input.body ? await input.arrayBuffer() : undefined;
    return undiciFetch(input.url, { method: input.method, headers: [...input.headers], body, dispatcher });
  }) as unknown as typeof fetch;

  const unpaid = await tlsFetch(`${resource.url}/report`);
  expect(unpaid.status).toBe(402);
  expect(unpaid.headers.get('payment-required')).toBeTruthy();

  const paid = await wrapFetchWithPayment(tlsFetch, client)(`${resource.url}/report`);
  expect(paid.status).toBe(200);
  expect(await paid.json()).toMatchObject({ route: 'report', paid: true });
  const settlement = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
  expect(settlement).toMatchObject({ success: true, network: DEVNET });
  expect(facilitator.settled).toEqual([settlement.transaction]);
  expect(await chain.status(settlement.transaction)).toBe('confirmed');
  expect((await chain.tokenAccount(payTo, usdc)).amount).toBe(250_000n);
  expect((await chain.tokenAccount(payer.address, usdc)).amount).toBe(750_000n);
  expect(resource.served.report).toBe(1);
  // The balance read the facilitator's post-settlement check makes (getTokenAccountBalance), in Solana's shape.
  const payeeAccount = (await chain.tokenAccount(payTo, usdc)).address;
  const { value } = await createSolanaRpc(node.url).getTokenAccountBalance(address(payeeAccount)).send();
  expect(value).toMatchObject({ amount: '250000', decimals: 6, uiAmountString: '0.25' });
  await dispatcher.close();
});
