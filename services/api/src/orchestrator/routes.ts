import { Router, type Request, type Response } from 'express';
import {
  ServiceError,
  addWhitelistEntry,
  airdrop,
  changeLimits,
  createGroup,
  describeGroup,
  invite,
  listGroups,
  removeWhitelistEntry,
  revoke,
  rotateKey,
  emergencyWithdraw,
  type EmergencyWithdrawRequest,
  fromBaseUnits,
  venueListing,
  reconcileGroup,
  validate,
  type AirdropRequest,
  type ChallengeRequest,
  type CreateGroupRequest,
  type InvitationRequest,
  type LimitsChangeRequest,
  type ReconciliationQuery,
  type TokenRequest,
  type WhitelistRequest,
} from '@tokenops/shared';
import { groupsOwnedBy } from '@tokenops/projections';
import type { ApiDeps } from '../deps';
import { bearer } from '../http/auth';
import { bodyOf, send } from '../http/middleware';
import { showWrite } from '../state/freshness';

type Limits = Pick<LimitsChangeRequest, 'per_tx_limit' | 'daily_limit' | 'hourly_tx_cap'>;

const limitsInput = (b: Limits): Limits => ({
  ...(b.per_tx_limit !== undefined && { per_tx_limit: b.per_tx_limit }),
  ...(b.daily_limit !== undefined && { daily_limit: b.daily_limit }),
  ...(b.hourly_tx_cap !== undefined && { hourly_tx_cap: b.hourly_tx_cap }),
});

/**
 * The operator surface (design.md): wallet sign-in, groups, allow-list, invitations, agents. Every
 * body and every path parameter passes its schema (operator-schemas.ts) before anything is read or
 * written.
 */
export function orchestratorRoutes(deps: ApiDeps): Router {
  const router = Router();
  const ok = (res: Parameters<typeof send>[0], body: unknown, status = 200) =>
    send(res, status, body, undefined, deps);
  const wallet = (req: Request) => deps.operators.wallet(bearer(req));
  // Every write answers once the agent views include it (boundedly; state/freshness.ts): what it
  // changed (limits, keys, status, a payment) reads back at once from any instance.
  const visible = <T>(res: Response, write: () => Promise<T>): Promise<T> => showWrite(deps, res, write);
  // Path parameters: each an identifier; U+0000 or a lone surrogate is refused like any string.
  for (const name of ['group', 'agent', 'entry'] as const)
    router.param(name, (req, _res, next, value: string) => {
      validate('PathParams', { [name]: value });
      next();
    });
  const param = (req: Request, name: 'group' | 'agent' | 'entry'): string => req.params[name] as string;

  router.post('/orchestrator/auth/challenge', (req, res) =>
    ok(res, deps.operators.challenge(bodyOf<ChallengeRequest>(req, 'ChallengeRequest').wallet)),
  );
  router.post('/orchestrator/auth/token', async (req, res) => {
    const body = bodyOf<TokenRequest>(req, 'TokenRequest');
    await deps.clientLimit.check(req);
    ok(res, await deps.operators.token(body));
  });

  router.post('/orchestrator/groups', async (req, res) => {
    const w = await wallet(req);
    if (!deps.operators.mayCreateGroups(w))
      throw new ServiceError('forbidden', 'This wallet may not create groups (ORCHESTRATOR_WALLETS).');
    const b = bodyOf<CreateGroupRequest>(req, 'CreateGroupRequest');
    ok(
      res,
      await visible(res, () => createGroup(deps.ctx, w, { limits: limitsInput(b.default_limits ?? b) })),
      201,
    );
  });
  // The caller's own groups: which ones, from the read models (a group's owner never changes); what
  // each holds, from the log. A group just created is listed: its creation answered once the views had it.
  router.get('/orchestrator/groups', async (req, res) => {
    const w = await wallet(req);
    ok(res, await listGroups(deps.ctx, w, await groupsOwnedBy(deps.views, w)));
  });
  router.get('/orchestrator/groups/:group', async (req, res) =>
    ok(res, await describeGroup(deps.ctx, await wallet(req), param(req, 'group'))),
  );
  // Reconciliation of the log with the chain (docs/audit.md): the discrepancies, none when clean.
  router.get('/orchestrator/groups/:group/reconciliation', async (req, res) => {
    const w = await wallet(req);
    const q = validate<ReconciliationQuery>('ReconciliationQuery', { ...req.query });
    const from = q.from === undefined ? undefined : Date.parse(q.from);
    const to = q.to === undefined ? undefined : Date.parse(q.to);
    if (from !== undefined && to !== undefined && from > to)
      throw new ServiceError('validation_error', 'The window ends before it starts (from is after to).', [
        { path: '/from', issue: 'after to' },
      ]);
    ok(
      res,
      await reconcileGroup(deps.ctx, w, param(req, 'group'), {
        ...(from !== undefined && { from }),
        ...(to !== undefined && { to }),
      }),
    );
  });
  router.post('/orchestrator/groups/:group/whitelist', async (req, res) => {
    const w = await wallet(req);
    const b = bodyOf<WhitelistRequest>(req, 'WhitelistRequest');
    ok(
      res,
      await visible(res, () =>
        addWhitelistEntry(deps.ctx, w, param(req, 'group'), {
          address: b.address,
          type: b.type,
          ...(b.label !== undefined && { label: b.label }),
          ...(b.approved_amount !== undefined && { approved_amount: b.approved_amount }),
          ...(b.ttl_seconds !== undefined && { ttl_seconds: b.ttl_seconds }),
        }),
      ),
      201,
    );
  });
  router.delete('/orchestrator/groups/:group/whitelist/:entry', async (req, res) => {
    const w = await wallet(req);
    ok(
      res,
      await visible(res, () => removeWhitelistEntry(deps.ctx, w, param(req, 'group'), param(req, 'entry'))),
    );
  });
  router.post('/orchestrator/groups/:group/invitations', async (req, res) => {
    const w = await wallet(req);
    const b = bodyOf<InvitationRequest>(req, 'InvitationRequest');
    res.setHeader('cache-control', 'no-store');
    ok(
      res,
      await visible(res, () =>
        invite(deps.ctx, w, param(req, 'group'), {
          limits: limitsInput(b),
          ...(b.label !== undefined && { label: b.label }),
        }),
      ),
      201,
    );
  });
  router.patch('/orchestrator/agents/:agent/limits', async (req, res) => {
    const w = await wallet(req);
    const b = bodyOf<LimitsChangeRequest>(req, 'LimitsChangeRequest');
    ok(res, await visible(res, () => changeLimits(deps.ctx, w, param(req, 'agent'), limitsInput(b))));
  });
  router.post('/orchestrator/agents/:agent/revoke', async (req, res) => {
    const w = await wallet(req);
    bodyOf(req, 'EmptyRequest');
    ok(res, await visible(res, () => revoke(deps.ctx, w, param(req, 'agent'))));
  });
  router.post('/orchestrator/agents/:agent/emergency-withdraw', async (req, res) => {
    const w = await wallet(req);
    const body = bodyOf<EmergencyWithdrawRequest>(req, 'EmergencyWithdrawRequest');
    ok(res, await visible(res, () => emergencyWithdraw(deps.ctx, w, param(req, 'agent'), body)));
  });
  router.post('/orchestrator/agents/:agent/rotate-key', async (req, res) => {
    const w = await wallet(req);
    bodyOf(req, 'EmptyRequest');
    res.setHeader('cache-control', 'no-store');
    ok(res, await visible(res, () => rotateKey(deps.ctx, w, param(req, 'agent'))));
  });

  router.get('/tokens', (_req, res) =>
    ok(res, {
      tokens: deps.ctx.chain.tokens.map(({ symbol, mint, decimals }) => ({ symbol, mint, decimals })),
    }),
  );
  router.get('/venues', (_req, res) => ok(res, venueListing(deps.ctx.venues)));
  router.get('/pools', async (_req, res) => {
    const aggregator = deps.ctx.aggregator;
    const pools = (await aggregator?.pools?.()) ?? [];
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
  // The local chain only: an operator mints demo tokens to an address, as an outside payer would.
  router.post('/dev/airdrop', async (req, res) => {
    const w = await wallet(req);
    if (!deps.operators.mayCreateGroups(w))
      throw new ServiceError('forbidden', 'This wallet is not an operator (ORCHESTRATOR_WALLETS).');
    const b = bodyOf<AirdropRequest>(req, 'AirdropRequest');
    ok(
      res,
      await visible(res, () =>
        airdrop(deps.ctx, {
          to: b.to,
          ...(b.mint !== undefined && { mint: b.mint }),
          amount: b.amount,
        }),
      ),
    );
  });
  return router;
}
