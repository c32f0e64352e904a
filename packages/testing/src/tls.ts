/**
 * TLS for tests: the certificates (made in memory by @tokenops/x402-local's localCertificates: a CA
 * and a server certificate it signs), and a real HTTPS receiver on loopback that records what it is
 * sent (webhook deliveries, in the tests of the sender and of the delivery worker).
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { localCertificates, type CertificateOptions, type TlsMaterial } from '@tokenops/x402-local';

export type { CertificateOptions, TlsMaterial };
/** A fresh CA and a server certificate it signs, valid from an hour ago for a day. */
export const testCertificates = localCertificates;

export interface ReceivedRequest {
  method: string;
  /** The path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as text (UTF-8). */
  body: string;
  /** When it was received in full (ms since the epoch). */
  at: number;
}

/** Answers one request; the request's body has been read in full. */
export type ReceiverHandler = (request: ReceivedRequest, response: ServerResponse) => unknown;

export interface Receiver {
  /** `https://127.0.0.1:<port>/`. */
  url: string;
  port: number;
  /** The CA that signed the receiver's certificate (PEM). */
  ca: string;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (a refused delivery opens none). */
  readonly connections: number;
  setHandler(handler: ReceiverHandler): void;
  /** Stops listening and cuts every open connection (a hanging handler's too). */
  close(): Promise<void>;
}

const answer200: ReceiverHandler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

/** Starts an HTTPS receiver on 127.0.0.1 or `host` (a port of its own) with a certificate from `testCertificates`. */
export async function startReceiver(
  options: { handler?: ReceiverHandler; tls?: TlsMaterial; host?: string } & CertificateOptions = {},
): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const tls = options.tls ?? (await testCertificates(options));
  let handler = options.handler ?? answer200;
  let connections = 0;
  const sockets = new Set<Socket>();
  const requests: ReceivedRequest[] = [];
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(request);
      Promise.resolve(handler(request, res)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      });
    });
  });
  // Counted on the TCP connection, before any TLS: a connection refused by the sender never comes.
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://${host}:${port}/`,
    port,
    ca: tls.ca,
    requests,
    get connections() {
      return connections;
    },
    setHandler(next) {
      handler = next;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
