/**
 * Ed25519 keypairs signed with node:crypto (about 15x faster than signing through @solana/web3.js).
 * A key is its 32-byte seed; the address is the base58 public key.
 */
import bs58 from 'bs58';
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface Signer {
  readonly address: string;
  readonly publicKey: Uint8Array;
  /** The 32-byte seed: keep it secret (encrypted at rest by the key store). */
  readonly seed: Uint8Array;
  sign(message: Uint8Array | Readonly<Uint8Array>): Uint8Array;
}

export function signerFromSeed(seed: Uint8Array): Signer {
  if (seed.length !== 32) throw new Error('an ed25519 seed is 32 bytes');
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const publicKey = new Uint8Array(Buffer.from(jwk.x!, 'base64url'));
  return {
    address: bs58.encode(publicKey),
    publicKey,
    seed: new Uint8Array(seed),
    sign: (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}

export function generateSigner(): Signer {
  const { privateKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  return signerFromSeed(new Uint8Array(der.subarray(der.length - 32)));
}

/** A signer derived from a name and a secret (stable addresses for the local chain's fixtures). */
export function derivedSigner(secret: string, name: string): Signer {
  return signerFromSeed(new Uint8Array(createHash('sha256').update(`${secret}:${name}`).digest()));
}
