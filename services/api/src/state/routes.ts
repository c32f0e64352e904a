import { Router } from 'express';
import type { HistoryQuery } from '@tokenops/shared';
import { validate } from '@tokenops/shared';
import { balancesOf, historyOf, limitsOf } from '@tokenops/projections';
import type { ApiDeps } from '../deps';
import { authenticateAgent } from '../http/auth';
import { send } from '../http/middleware';
import { showOwnWrites } from './freshness';

/** GET /balance, /limits, /history: answered from the agent views, once they show the agent's own writes (freshness.ts). */
export function stateRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.get('/limits', async (req, res) => {
    const { view } = await authenticateAgent(req, deps);
    await showOwnWrites(deps, res, view.agent_id);
    const { spent_today: _s, hourly_count: _h, ...limits } = await limitsOf(deps.views, view, deps.ctx.now());
    send(res, 200, limits, 'LimitsResponse', deps);
  });
  router.get('/balance', async (req, res) => {
    const { view } = await authenticateAgent(req, deps);
    await showOwnWrites(deps, res, view.agent_id);
    const [limits, balances] = await Promise.all([
      limitsOf(deps.views, view, deps.ctx.now()),
      balancesOf(deps.views, view.agent_id, deps.ctx.chain.tokens),
    ]);
    const { group_id: _group, spent_today: _s, hourly_count: _h, ...fields } = limits;
    send(res, 200, { balances, ...fields }, 'BalanceResponse', deps);
  });
  router.get('/history', async (req, res) => {
    const { view } = await authenticateAgent(req, deps);
    const query = validate<HistoryQuery & { limit: number }>('HistoryQuery', { ...req.query });
    await showOwnWrites(deps, res, view.agent_id);
    send(
      res,
      200,
      {
        // The primary contract lists transfers and swaps, with its own fields.
        transactions: (
          await historyOf(deps.views, view.agent_id, query.limit, deps.ctx.now(), ['transfer', 'swap'])
        ).map(({ received_amount: _r, received_token: _t, ...entry }) => entry),
      },
      'HistoryResponse',
      deps,
    );
  });
  return router;
}
