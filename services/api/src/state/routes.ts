import { AGENT_STATE, type HistoryQuery } from '@tokenops/shared';
import { balancesOf, historyOf, limitsOf } from '@tokenops/projections';
import type { ApiDeps } from '../deps';
import { authenticateAgent } from '../http/auth';
import { defineRoute, type Route } from '../http/operations';
import { showOwnWrites } from './freshness';

/** GET /balance, /limits, /history: answered from the agent views, once they show the agent's own writes (freshness.ts). */
export function stateRoutes(deps: ApiDeps): Route[] {
  const rows = AGENT_STATE.operations;
  return [
    defineRoute(rows.getLimits, async ({ req, res, reply }) => {
      const { view } = await authenticateAgent(req, deps);
      await showOwnWrites(deps, res, view.agent_id);
      const {
        spent_today: _s,
        hourly_count: _h,
        ...limits
      } = await limitsOf(deps.views, view, deps.ctx.now());
      reply(limits);
    }),
    defineRoute(rows.getBalance, async ({ req, res, reply }) => {
      const { view } = await authenticateAgent(req, deps);
      await showOwnWrites(deps, res, view.agent_id);
      const [limits, balances] = await Promise.all([
        limitsOf(deps.views, view, deps.ctx.now()),
        balancesOf(deps.views, view.agent_id, deps.ctx.chain.tokens),
      ]);
      const { group_id: _group, spent_today: _s, hourly_count: _h, ...fields } = limits;
      reply({ balances, ...fields });
    }),
    defineRoute(rows.getHistory, async ({ req, res, query, reply }) => {
      const { view } = await authenticateAgent(req, deps);
      const q = query<HistoryQuery & { limit: number }>();
      await showOwnWrites(deps, res, view.agent_id);
      reply({
        // The primary contract lists transfers and swaps, with its own fields.
        transactions: (
          await historyOf(deps.views, view.agent_id, q.limit, deps.ctx.now(), ['transfer', 'swap'])
        ).map(({ received_amount: _r, received_token: _t, ...entry }) => entry),
      });
    }),
  ];
}
