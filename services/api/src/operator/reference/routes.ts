/**
 * The operator document's reference tag beyond the agent's reads (served by the agent's routes,
 * reference/routes.ts): the local chain's airdrop, for wallets that may create groups.
 */
import { OPERATOR_REFERENCE, ServiceError, airdrop, type AirdropRequest } from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls } from '../common';

export function airdropRoutes(deps: ApiDeps): Route[] {
  const { wallet, visible } = operatorCalls(deps);
  return [
    // The local chain only: an operator mints demo tokens to an address, as an outside payer would.
    defineRoute(OPERATOR_REFERENCE.operations.airdrop, async ({ req, res, body, reply }) => {
      const w = await wallet(req);
      if (!deps.operators.mayCreateGroups(w))
        throw new ServiceError('forbidden', 'This wallet is not an operator (ORCHESTRATOR_WALLETS).');
      const b = body<AirdropRequest>();
      reply(
        await visible(res, () =>
          airdrop(deps.ctx, {
            to: b.to,
            ...(b.mint !== undefined && { mint: b.mint }),
            amount: b.amount,
          }),
        ),
      );
    }),
  ];
}
