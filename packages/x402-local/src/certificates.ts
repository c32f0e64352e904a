/**
 * TLS made in memory: a CA and a server certificate it signs for given names and IP addresses (EC
 * P-256 keys, @peculiar/x509 over Node's webcrypto, a few milliseconds), valid for a day. For loopback
 * servers only: the demo's paid resource, and the tests' receivers.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';

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
export async function localCertificates(options: CertificateOptions = {}): Promise<TlsMaterial> {
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
