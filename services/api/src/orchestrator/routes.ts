import { Router, type Request } from 'express';
import {
  LocalAggregator,
  ServiceError,
  addWhitelistEntry,
  airdrop,
  changeLimits,
  createGroup,
  describeGroup,
  invite,
  removeWhitelistEntry,
  revoke,
  rotateKey,
  fromBaseUnits,
  validationError,
  venueListing,
  type WebhookRequest,
} from '@tokenops/shared';
import { projectionAt } from '@tokenops/projections';
import type { ApiDeps } from '../deps';
import { bearer } from '../http/auth';
import { bodyOf, send } from '../http/middleware';
import { registerWebhook } from '../webhooks/subscriptions';

type Json = Record<string, unknown>;

function object(req: Request): Json {
  const body = req.json ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw validationError([{ path: '', issue: 'must be a JSON object' }]);
  return body as Json;
}

const limitsInput = (b: Json) => ({
  ...(b.per_tx_limit !== undefined && { per_tx_limit: b.per_tx_limit }),
  ...(b.daily_limit !== undefined && { daily_limit: b.daily_limit }),
  ...(b.hourly_tx_cap !== undefined && { hourly_tx_cap: b.hourly_tx_cap }),
});

const optionalText = (b: Json, field: string): string | undefined => {
  const v = b[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > 100)
    throw validationError([{ path: `/${field}`, issue: 'must be a string of at most 100 characters' }]);
  return v;
};

/** The operator surface (design.md): wallet sign-in, groups, allow-list, invitations, agents. */
export function orchestratorRoutes(deps: ApiDeps): Router {
  const router = Router();
  const ok = (res: Parameters<typeof send>[0], body: unknown, status = 200) =>
    send(res, status, body, undefined, deps);
  const wallet = (req: Request) => deps.operators.wallet(bearer(req));
  // Changes agents read back (limits, keys, status) answer once the agent views include them.
  const visible = async <T>(result: T): Promise<T> => {
    await projectionAt(deps.ctx.store, deps.views).catch(() => undefined);
    return result;
  };

  router.post('/orchestrator/auth/challenge', (req, res) =>
    ok(res, deps.operators.challenge(object(req).wallet)),
  );
  router.post('/orchestrator/auth/token', async (req, res) =>
    ok(res, await deps.operators.token(object(req))),
  );

  router.post('/orchestrator/groups', async (req, res) => {
    const w = await wallet(req);
    if (!deps.operators.mayCreateGroups(w))
      throw new ServiceError('forbidden', 'This wallet may not create groups (ORCHESTRATOR_WALLETS).');
    const b = object(req);
    ok(
      res,
      await createGroup(deps.ctx, w, { limits: limitsInput((b.default_limits as Json | undefined) ?? b) }),
      201,
    );
  });
  router.get('/orchestrator/groups/:group', async (req, res) =>
    ok(res, await describeGroup(deps.ctx, await wallet(req), req.params.group as string)),
  );
  router.post('/orchestrator/groups/:group/whitelist', async (req, res) => {
    const b = object(req);
    if (typeof b.address !== 'string') throw validationError([{ path: '/address', issue: 'is required' }]);
    const label = optionalText(b, 'label');
    ok(
      res,
      await addWhitelistEntry(deps.ctx, await wallet(req), req.params.group as string, {
        address: b.address,
        type: b.type as 1,
        ...(label !== undefined && { label }),
        ...(b.approved_amount !== undefined && { approved_amount: b.approved_amount }),
        ...(b.ttl_seconds !== undefined && { ttl_seconds: b.ttl_seconds }),
      }),
      201,
    );
  });
  router.delete('/orchestrator/groups/:group/whitelist/:entry', async (req, res) =>
    ok(
      res,
      await removeWhitelistEntry(
        deps.ctx,
        await wallet(req),
        req.params.group as string,
        req.params.entry as string,
      ),
    ),
  );
  router.post('/orchestrator/groups/:group/invitations', async (req, res) => {
    const b = object(req);
    const label = optionalText(b, 'label');
    res.setHeader('cache-control', 'no-store');
    ok(
      res,
      await invite(deps.ctx, await wallet(req), req.params.group as string, {
        limits: limitsInput(b),
        ...(label !== undefined && { label }),
      }),
      201,
    );
  });
  router.patch('/orchestrator/agents/:agent/limits', async (req, res) =>
    ok(
      res,
      await visible(
        await changeLimits(deps.ctx, await wallet(req), req.params.agent as string, limitsInput(object(req))),
      ),
    ),
  );
  router.post('/orchestrator/agents/:agent/revoke', async (req, res) =>
    ok(res, await visible(await revoke(deps.ctx, await wallet(req), req.params.agent as string))),
  );
  router.post('/orchestrator/agents/:agent/rotate-key', async (req, res) => {
    res.setHeader('cache-control', 'no-store');
    ok(res, await visible(await rotateKey(deps.ctx, await wallet(req), req.params.agent as string)));
  });
  router.post('/orchestrator/groups/:group/webhooks', async (req, res) => {
    const w = await wallet(req);
    await describeGroup(deps.ctx, w, req.params.group as string); // owns it
    const body = bodyOf<WebhookRequest>(req, 'WebhookRequest');
    res.setHeader('cache-control', 'no-store');
    ok(res, await registerWebhook(deps.ctx, { groupId: req.params.group as string }, body), 201);
  });

  router.get('/tokens', (_req, res) =>
    ok(res, {
      tokens: deps.ctx.chain.tokens.map(({ symbol, mint, decimals }) => ({ symbol, mint, decimals })),
    }),
  );
  router.get('/venues', (_req, res) => ok(res, venueListing(deps.ctx.venues)));
  router.get('/pools', async (_req, res) => {
    const aggregator = deps.ctx.aggregator;
    const pools = aggregator instanceof LocalAggregator ? await aggregator.pools() : [];
    ok(res, {
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
  });
  router.post('/dev/airdrop', async (req, res) => {
    const b = object(req);
    if (typeof b.to !== 'string') throw validationError([{ path: '/to', issue: 'is required' }]);
    if (b.mint !== undefined && typeof b.mint !== 'string')
      throw validationError([{ path: '/mint', issue: 'must be a string' }]);
    ok(
      res,
      await airdrop(deps.ctx, {
        to: b.to,
        ...(b.mint !== undefined && { mint: b.mint as string }),
        amount: b.amount,
      }),
    );
  });
  return router;
}
