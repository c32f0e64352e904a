/**
 * x402 on loopback: a real paid resource and a real facilitator, for the demo of the embedded default
 * and for the tests.
 *
 * - The facilitator is `x402Facilitator` (@x402/core) with @x402/svm's `exact` scheme, served over HTTP
 *   as a facilitator serves it (POST /verify, POST /settle, GET /supported: the shapes @x402/core's
 *   HTTPFacilitatorClient sends). Its fee payer is a keypair of its own, given SOL on the chain; it
 *   simulates, sends and confirms over the chain's JSON-RPC URL (the chain node, or the embedded chain
 *   served over JSON-RPC), which stands in for Solana devnet (its CAIP-2 id) with the chain's own mint.
 * - The resource is an Express app behind @x402/express's `paymentMiddleware` over HTTPS (a certificate
 *   of certificates.ts), with one paid route per price and a free one; it counts what its handlers
 *   served.
 */
import express from 'express';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { generateKeyPairSigner } from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { paymentMiddleware } from '@x402/express';
import { toFacilitatorSvmSigner } from '@x402/svm';
import { ExactSvmScheme as FacilitatorScheme } from '@x402/svm/exact/facilitator';
import { ExactSvmScheme as ServerScheme } from '@x402/svm/exact/server';
import { UptoSvmScheme as UptoServerScheme } from '@x402/svm/upto/server';
import type { TlsMaterial } from './certificates';

/** Solana devnet's CAIP-2 id: the network the local chain stands in for. */
export const DEVNET: Network = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
/** Solana mainnet's: the facilitator answers for it too (over the same local chain), for a resource on another network than the service's. */
export const MAINNET: Network = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

export interface Facilitator {
  url: string;
  /** The fee payer's address (`extra.feePayer` of every requirement). */
  feePayer: string;
  /** Transactions it settled (their signatures), in order. */
  settled: string[];
  close(): Promise<void>;
}

/**
 * A facilitator over `rpcUrl` for devnet and mainnet (both the local chain); `fund` gives its new fee
 * payer SOL (lamports) on that chain. Its /supported also names the `upto` scheme on devnet (which it
 * cannot settle): a resource can then ask for a scheme other than `exact`.
 */
export async function startFacilitator(options: {
  rpcUrl: string;
  fund: (address: string, lamports: bigint) => Promise<void>;
}): Promise<Facilitator> {
  const signer = await generateKeyPairSigner();
  await options.fund(signer.address, 10_000_000_000n);
  const facilitator = new x402Facilitator().register(
    [DEVNET, MAINNET],
    new FacilitatorScheme(toFacilitatorSvmSigner(signer, { defaultRpcUrl: options.rpcUrl })),
  );
  const settled: string[] = [];
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  const body = (req: express.Request) =>
    req.body as { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
  app.get('/supported', (_req, res) => {
    const supported = facilitator.getSupported();
    const upto = {
      x402Version: 2,
      scheme: 'upto',
      network: DEVNET,
      extra: { feePayer: signer.address, receiverAuthorizer: signer.address },
    };
    res.json({ ...supported, kinds: [...supported.kinds, upto] });
  });
  app.post('/verify', async (req, res) => {
    const { paymentPayload, paymentRequirements } = body(req);
    res.json(await facilitator.verify(paymentPayload, paymentRequirements));
  });
  app.post('/settle', async (req, res) => {
    const { paymentPayload, paymentRequirements } = body(req);
    const result = await facilitator.settle(paymentPayload, paymentRequirements);
    if (result.success) settled.push(result.transaction);
    res.json(result);
  });
  const server = createHttpServer(app);
  const url = await listen(server, '127.0.0.1');
  return { url, feePayer: signer.address, settled, close: closer(server) };
}

export interface PaidRoute {
  /** The price in base units of `asset`. */
  amount: string;
  asset: string;
  payTo: string;
  network?: Network;
  scheme?: string;
  /** The requirement's `extra` (e.g. `paymentFlow: 'upfront'`: settled before the handler runs). */
  extra?: Record<string, unknown>;
  /** What the handler answers once paid (200 and a JSON body by default). */
  status?: number;
  /** How long the handler takes (ms): the payment is settled after it (the default flow). */
  delayMs?: number;
}

export interface PaidResource {
  /** `https://<host>:<port>`: routes are `GET <url>/<name>` (and `POST`). */
  url: string;
  ca: string;
  /** Requests each route's handler served (it runs only once the payment verified). */
  served: Record<string, number>;
  close(): Promise<void>;
}

/**
 * An HTTPS resource whose routes (`/<name>` for each entry of `routes`) are paid through
 * @x402/express with `facilitator`; `/free` is not paid. A route answers `{route, paid: true}`.
 */
export async function startPaidResource(options: {
  facilitator: Facilitator;
  routes: Record<string, PaidRoute>;
  tls: TlsMaterial;
  host?: string;
  /** The port it listens on (any free one when absent): known before, it can be the only one allowed. */
  port?: number;
  /** Middleware before the payment's (tests: a connection cut). */
  before?: express.RequestHandler[];
}): Promise<PaidResource> {
  const served: Record<string, number> = {};
  const networks = [...new Set(Object.values(options.routes).map((r) => r.network ?? DEVNET))];
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: options.facilitator.url }));
  for (const network of networks) server.register(network, new ServerScheme());
  if (Object.values(options.routes).some((r) => r.scheme === 'upto'))
    server.register(DEVNET, new UptoServerScheme());
  const config = Object.fromEntries(
    Object.entries(options.routes).flatMap(([name, route]) => {
      const accepts = {
        scheme: route.scheme ?? 'exact',
        network: route.network ?? DEVNET,
        payTo: route.payTo,
        price: { amount: route.amount, asset: route.asset },
        maxTimeoutSeconds: 60,
        ...(route.extra && { extra: route.extra }),
      };
      const routeConfig = { accepts, description: `the ${name} resource`, mimeType: 'application/json' };
      return [
        [`GET /${name}`, routeConfig],
        [`POST /${name}`, routeConfig],
      ];
    }),
  );
  const app = express();
  app.use(express.json());
  for (const handler of options.before ?? []) app.use(handler);
  app.use(paymentMiddleware(config, server));
  app.get('/free', (_req, res) => {
    res.json({ free: true });
  });
  for (const [name, route] of Object.entries(options.routes)) {
    const handler = async (req: express.Request, res: express.Response) => {
      if (route.delayMs) await new Promise((r) => setTimeout(r, route.delayMs));
      served[name] = (served[name] ?? 0) + 1;
      res.status(route.status ?? 200).json({
        route: name,
        paid: true,
        method: req.method,
        ...(req.body && { echo: req.body as unknown }),
        // Whether the request carried a credential of its own (its value is not echoed).
        ...(req.header('x-api-key') && { api_key: 'present' }),
      });
    };
    app.get(`/${name}`, handler);
    app.post(`/${name}`, handler);
  }
  const https = createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, app);
  const url = await listen(https, options.host ?? '127.0.0.1', 'https', options.port);
  return { url, ca: options.tls.ca, served, close: closer(https) };
}

async function listen(server: Server, host: string, scheme = 'http', port = 0): Promise<string> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  (server as Server & { sockets?: Set<Socket> }).sockets = sockets;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return `${scheme}://${host}:${(server.address() as AddressInfo).port}`;
}

const closer = (server: Server) => (): Promise<void> =>
  new Promise((resolve) => {
    for (const socket of (server as Server & { sockets?: Set<Socket> }).sockets ?? []) socket.destroy();
    server.close(() => resolve());
  });
