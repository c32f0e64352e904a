/**
 * Sign-in (operators and auditors alike): a challenge for the wallet to sign, then the signed
 * challenge exchanged, once, for a JWT (auth.ts). Failed exchanges count toward the client's limit.
 */
import { OPERATOR_SIGN_IN, type ChallengeRequest, type TokenRequest } from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';

export function signInRoutes(deps: ApiDeps): Route[] {
  const rows = OPERATOR_SIGN_IN.operations;
  return [
    defineRoute(rows.signInChallenge, ({ body, reply }) =>
      reply(deps.operators.challenge(body<ChallengeRequest>().wallet)),
    ),
    defineRoute(rows.signInToken, async ({ req, body, reply }) => {
      const b = body<TokenRequest>();
      await deps.clientLimit.check(req);
      reply(await deps.operators.token(b));
    }),
  ];
}
