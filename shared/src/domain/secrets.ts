import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Invitation codes and API keys carry 256 bits of randomness, so a SHA-256 digest is a safe
 * at-rest form (no slow hash needed); only the digest is ever stored in an event.
 */
export const secretDigest = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

/** Compares two digests in constant time. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
