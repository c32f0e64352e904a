/**
 * Sign-in: a wallet signs a challenge (ed25519) and gets a JWT; operators and auditors alike
 * (services/api/src/operator/sign-in/auth.ts).
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { Identifier, Timestamp, type Shape } from '../schemas';
import { ANY } from './common';

export const ChallengeRequest = object({ wallet: Identifier });

export const TokenRequest = object({
  wallet: Identifier,
  message: { type: 'string', minLength: 1, maxLength: 1024 },
  signature: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[1-9A-HJ-NP-Za-km-z]+$' },
});

export const ChallengeResponse = object({
  message: {
    type: 'string',
    description: 'Sign this text (UTF-8) with the wallet; it expires in five minutes.',
  },
  expires_at: Timestamp,
});

export const TokenResponse = object({
  token: { type: 'string', description: 'A JWT (HS256) for the wallet: Authorization: Bearer <token>.' },
  expires_at: Timestamp,
});

export const OPERATOR_SIGN_IN = contractTag({
  name: 'sign-in',
  description: 'A wallet signs a challenge and gets a JWT (operators and auditors).',
  schemas: { ChallengeRequest, TokenRequest, ChallengeResponse, TokenResponse },
  operations: {
    signInChallenge: {
      method: 'post',
      path: '/orchestrator/auth/challenge',
      tag: 'sign-in',
      operationId: 'signInChallenge',
      summary: 'A text for the wallet to sign (ed25519), valid five minutes; nothing is stored.',
      description:
        'Makes a sign-in message for `wallet`: the wallet, a random nonce, its expiry (five minutes) and the service’s MAC over them, so nothing needs storing until it is used. Any wallet may ask; what it may do once signed in depends on what it owns or was granted.',
      request: 'ChallengeRequest',
      response: 'ChallengeResponse',
      errors: ANY,
      public: true,
      signIn: true,
    },
    signInToken: {
      method: 'post',
      path: '/orchestrator/auth/token',
      tag: 'sign-in',
      operationId: 'signInToken',
      summary: 'Exchange a signed challenge (once) for a JWT valid one hour; auditors sign in the same way.',
      description:
        'Checks the challenge (made by this service, for this wallet, not expired), the ed25519 signature over it, and that it was not used before (its nonce is claimed in the log, so it signs in once across every instance and restart); then answers a JWT for the wallet (HS256, one hour). Any failure is `401 unauthorized` and counts toward the client address’s allowance of failed sign-ins; past it the address is answered `429 rate_limited` with Retry-After.',
      request: 'TokenRequest',
      response: 'TokenResponse',
      errors: [...ANY, 'unauthorized'],
      public: true,
      signIn: true,
    },
  },
});

export type ChallengeRequest = Shape<typeof ChallengeRequest>;
export type TokenRequest = Shape<typeof TokenRequest>;
