import { createPublicKey, verify } from 'node:crypto';
import bs58 from 'bs58';

/**
 * Whether `signature` (base58) is `wallet`'s (a base58 ed25519 public key) ed25519 signature of the
 * UTF-8 bytes of `message`: the operator's sign-in and an approver's approval check the same way.
 * Computation only, no I/O.
 */
export function verifySignature(wallet: string, message: string, signature: string): boolean {
  try {
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bs58.decode(wallet)).toString('base64url') },
      format: 'jwk',
    });
    return verify(null, Buffer.from(message, 'utf8'), key, bs58.decode(signature));
  } catch {
    return false;
  }
}
