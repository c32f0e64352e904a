/**
 * Operators sign in with their wallet: the service hands out a challenge (its own HMAC inside, so
 * handing one out stores nothing), the wallet signs it (ed25519, base58), and the service answers a
 * JWT (HS256, jose) for that wallet. Operator calls carry it as `Authorization: Bearer <jwt>`.
 *
 * A challenge signs in once. Its nonce is claimed when it is exchanged, in the event log: an
 * `operator.signed_in` event appended to the nonce's own stream, expecting no stream. The log is the
 * one store every API instance shares in both topologies (PGlite embedded, PostgreSQL or EventStoreDB
 * on the server), its expected-revision check makes the claim atomic across instances, and it keeps
 * the claim across restarts (a challenge outlives a restart: its HMAC key is kept), which a process's
 * memory would not; the event is also the audit trail of sign-ins. The read models are no place for
 * it: they are derived from the log and replaced on a replay.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import {
  ServiceError,
  WrongExpectedRevision,
  isAddress,
  validationError,
  verifySignature,
  type EventStore,
  type TokenRequest,
} from '@tokenops/shared';

/** The wallet must be an ed25519 public key (the schema checks the text; this, the key). */
function mustBeWallet(wallet: string): void {
  if (!isAddress(wallet))
    throw validationError([{ path: '/wallet', issue: 'must be a base58 ed25519 public key' }]);
}

const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const TOKEN_TTL_S = 60 * 60;

/** The challenges already exchanged for a token. */
export interface UsedChallenges {
  /** Records the nonce as used by `wallet`; false when it was used already. */
  claim(nonce: string, wallet: string): Promise<boolean>;
}

/** The stream that records a challenge's use (one per nonce). */
export const signInStream = (nonce: string): string => `operator-signin-${nonce}`;

/** Used challenges in the event log (see above). */
export function usedChallengesIn(store: EventStore, now: () => number = Date.now): UsedChallenges {
  return {
    async claim(nonce, wallet) {
      try {
        await store.append(
          signInStream(nonce),
          [{ type: 'operator.signed_in', data: { wallet, nonce, at: now() } }],
          'no_stream',
        );
        return true;
      } catch (err) {
        if (err instanceof WrongExpectedRevision) return false;
        throw err;
      }
    },
  };
}

export interface OperatorAuthOptions {
  secret: Uint8Array;
  used: UsedChallenges;
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

  /** A challenge for `wallet` (checked by the route's schema). */
  challenge(wallet: string): { message: string; expires_at: string } {
    mustBeWallet(wallet);
    const expires = new Date(this.now() + CHALLENGE_TTL_MS).toISOString();
    const body = `Sign in to token operations\nwallet: ${wallet}\nnonce: ${randomBytes(16).toString('hex')}\nexpires: ${expires}`;
    return { message: `${body}\nmac: ${this.mac(body)}`, expires_at: expires };
  }

  /** A token for a signed challenge (the body checked by the route's schema); each challenge once. */
  async token(input: TokenRequest): Promise<{ token: string; expires_at: string }> {
    const { wallet, message, signature } = input;
    mustBeWallet(wallet);
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
    if (!(await this.options.used.claim(fields.nonce ?? '', wallet)))
      throw new ServiceError('unauthorized', 'This challenge was used already; ask for a new one.');
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
