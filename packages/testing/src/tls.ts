/**
 * TLS for tests, made in memory: a CA and a server certificate it signs for given names and IP
 * addresses (EC P-256 keys, @peculiar/x509 over Node's webcrypto, a few milliseconds), and a real
 * HTTPS receiver on loopback that records what it is sent (webhook deliveries, in the tests of the
 * sender and of the delivery worker).
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

// @peculiar/x509's types name the DOM's crypto types, which this (Node) project does not load.
type Keys = x509.X509CertificateCreateSelfSignedParams['keys'];
type Key = x509.X509CertificateCreateWithKeyParams['signingKey'];
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const HOUR_MS = 60 * 60 * 1000;

export interface TlsMaterial {
  /** The CA's certificate (PEM): what a client must trust. */
  ca: string;
  /** The server's certificate (PEM) and its private key (PKCS#8 PEM). */
  cert: string;
  key: string;
}

export interface CertificateOptions {
  /** DNS names in the certificate; `localhost` by default. */
  names?: readonly string[];
  /** IP addresses in the certificate; `127.0.0.1` and `::1` by default. */
  addresses?: readonly string[];
}

const keyPair = () =>
  webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
const pemOf = (key: webcrypto.CryptoKey) =>
  KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
const serial = () => `01${randomBytes(8).toString('hex')}`;

/** A fresh CA and a server certificate it signs, valid from an hour ago for a day. */
export async function testCertificates(options: CertificateOptions = {}): Promise<TlsMaterial> {
  const names = options.names ?? ['localhost'];
  const addresses = options.addresses ?? ['127.0.0.1', '::1'];
  const notBefore = new Date(Date.now() - HOUR_MS);
  const notAfter = new Date(Date.now() + 24 * HOUR_MS);
  const [caKeys, serverKeys] = await Promise.all([keyPair(), keyPair()]);
  const caName = `CN=Test CA ${randomBytes(4).toString('hex')}`;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: caName,
    notBefore,
    notAfter,
    keys: caKeys as unknown as Keys,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey as unknown as Key),
    ],
  });
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${names[0] ?? addresses[0] ?? 'test server'}`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: serverKeys.publicKey as unknown as Key,
    signingKey: caKeys.privateKey as unknown as Key,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...names.map((value) => ({ type: 'dns' as const, value })),
        ...addresses.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey as unknown as Key),
    ],
  });
  return { ca: ca.toString('pem'), cert: cert.toString('pem'), key: pemOf(serverKeys.privateKey) };
}

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
