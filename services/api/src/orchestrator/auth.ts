/**
 * Operators sign in with their wallet: the service hands out a challenge (its own HMAC inside, so it
 * needs no storage), the wallet signs it (ed25519, base58), and the service answers a JWT (HS256,
 * jose) for that wallet. Orchestrator calls carry it as `Authorization: Bearer <jwt>`.
 */
import bs58 from 'bs58';
import { createHmac, createPublicKey, randomBytes, timingSafeEqual, verify } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { ServiceError, isAddress, validationError } from '@tokenops/shared';

const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const TOKEN_TTL_S = 60 * 60;

export interface OperatorAuthOptions {
  secret: Uint8Array;
  /** Wallets that may create groups; undefined lets any wallet (the embedded default, with a warning). */
  allowedCreators?: ReadonlySet<string>;
  now?: () => number;
}

export class OperatorAuth {
  private readonly now: () => number;

  constructor(private readonly options: OperatorAuthOptions) {
    this.now = options.now ?? Date.now;
  }

  private mac(text: string): string {
    return createHmac('sha256', this.options.secret).update(text).digest('base64url');
  }

  challenge(wallet: unknown): { message: string; expires_at: string } {
    if (typeof wallet !== 'string' || !isAddress(wallet))
      throw validationError([{ path: '/wallet', issue: 'must be a base58 ed25519 public key' }]);
    const expires = new Date(this.now() + CHALLENGE_TTL_MS).toISOString();
    const body = `Sign in to token operations\nwallet: ${wallet}\nnonce: ${randomBytes(16).toString('hex')}\nexpires: ${expires}`;
    return { message: `${body}\nmac: ${this.mac(body)}`, expires_at: expires };
  }

  async token(input: {
    wallet?: unknown;
    message?: unknown;
    signature?: unknown;
  }): Promise<{ token: string; expires_at: string }> {
    const { wallet, message, signature } = input;
    if (typeof wallet !== 'string' || !isAddress(wallet))
      throw validationError([{ path: '/wallet', issue: 'must be a base58 ed25519 public key' }]);
    if (typeof message !== 'string' || typeof signature !== 'string') {
      throw validationError([
        { path: typeof message !== 'string' ? '/message' : '/signature', issue: 'is required' },
      ]);
    }
    const at = message.lastIndexOf('\nmac: ');
    const body = message.slice(0, at);
    const mac = Buffer.from(message.slice(at + 6));
    const expected = Buffer.from(this.mac(body));
    const fields = Object.fromEntries(
      body
        .split('\n')
        .slice(1)
        .map((l) => l.split(': ') as [string, string]),
    );
    const genuine = at > 0 && mac.length === expected.length && timingSafeEqual(mac, expected);
    if (!genuine || fields.wallet !== wallet || Date.parse(fields.expires ?? '') <= this.now()) {
      throw new ServiceError(
        'unauthorized',
        'The challenge is not ours, not for this wallet, or expired; ask for a new one.',
      );
    }
    if (!verifySignature(wallet, message, signature))
      throw new ServiceError('unauthorized', 'The signature does not verify for this wallet.');
    const expires = Math.floor(this.now() / 1000) + TOKEN_TTL_S;
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(wallet)
      .setIssuedAt()
      .setExpirationTime(expires)
      .setAudience('tokenops-operator')
      .sign(this.options.secret);
    return { token, expires_at: new Date(expires * 1000).toISOString() };
  }

  /** The wallet a bearer JWT speaks for. */
  async wallet(bearer: string | undefined): Promise<string> {
    if (!bearer)
      throw new ServiceError(
        'unauthorized',
        'Send Authorization: Bearer <token> from POST /api/v1/orchestrator/auth/token.',
      );
    try {
      const { payload } = await jwtVerify(bearer, this.options.secret, {
        audience: 'tokenops-operator',
        algorithms: ['HS256'],
      });
      if (typeof payload.sub !== 'string') throw new Error('no subject');
      return payload.sub;
    } catch {
      throw new ServiceError('unauthorized', 'The token is invalid or expired; sign in again.');
    }
  }

  mayCreateGroups(wallet: string): boolean {
    return !this.options.allowedCreators || this.options.allowedCreators.has(wallet);
  }
}

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
