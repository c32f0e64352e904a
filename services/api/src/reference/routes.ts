/**
 * GET /tokens, /venues, /pools: what a spend needs, public (no key). In the agent's document and the
 * operator's alike, served once, here.
 */
import { AGENT_REFERENCE, fromBaseUnits, venueListing } from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/operations';

export function referenceRoutes(deps: ApiDeps): Route[] {
  const rows = AGENT_REFERENCE.operations;
  return [
    defineRoute(rows.listTokens, ({ reply }) =>
      reply({
        tokens: deps.ctx.chain.tokens.map(({ symbol, mint, decimals }) => ({ symbol, mint, decimals })),
      }),
    ),
    defineRoute(rows.listVenues, ({ reply }) => reply(venueListing(deps.ctx.venues))),
    defineRoute(rows.listPools, async ({ reply }) => {
      const aggregator = deps.ctx.aggregator;
      const pools = (await aggregator?.pools?.()) ?? [];
      reply({
        aggregator: aggregator?.address ?? null,
        pools: pools.map((p) => ({
          pair: p.pair,
          fee_bps: p.feeBps,
          reserves: p.tokens.map((t) => ({
            symbol: t.symbol,
            mint: t.mint,
            vault: t.vault,
            reserve: fromBaseUnits(t.reserve, t.decimals),
          })),
        })),
      });
    }),
  ];
}
