import type { Request, Response } from 'express';
import {
  AGENT_REFERENCE,
  OPERATOR_AGENTS,
  OPERATOR_ALLOW_LIST,
  OPERATOR_AUDIT,
  OPERATOR_GROUPS,
  OPERATOR_REFERENCE,
  OPERATOR_SIGN_IN,
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
import { defineRoute, type Route } from '../http/operations';
import { showWrite } from '../state/freshness';

type Limits = Pick<
  LimitsChangeRequest,
  'per_tx_limit' | 'daily_limit' | 'hourly_tx_cap' | 'approval_threshold'
>;

const limitsInput = (b: Limits): Limits => ({
  ...(b.per_tx_limit !== undefined && { per_tx_limit: b.per_tx_limit }),
  ...(b.daily_limit !== undefined && { daily_limit: b.daily_limit }),
  ...(b.hourly_tx_cap !== undefined && { hourly_tx_cap: b.hourly_tx_cap }),
  ...(b.approval_threshold !== undefined && { approval_threshold: b.approval_threshold }),
});

/**
 * The operator surface (design.md): wallet sign-in, groups, allow-list, invitations, agents, the
 * reference reads and the local chain's airdrop, by operation id (operator-openapi.ts). Every body
 * and every path parameter passes its schema (operator-schemas.ts) before anything is read or written.
 */
export function orchestratorRoutes(deps: ApiDeps): Route[] {
  const wallet = (req: Request) => deps.operators.wallet(bearer(req));
  // Every write answers once the agent views include it (boundedly; state/freshness.ts): what it
  // changed (limits, keys, status, a payment) reads back at once from any instance.
  const visible = <T>(res: Response, write: () => Promise<T>): Promise<T> => showWrite(deps, res, write);

  return [
    defineRoute(OPERATOR_SIGN_IN.operations.signInChallenge, ({ body, reply }) =>
      reply(deps.operators.challenge(body<ChallengeRequest>().wallet)),
    ),
    defineRoute(OPERATOR_SIGN_IN.operations.signInToken, async ({ req, body, reply }) => {
      const b = body<TokenRequest>();
      await deps.clientLimit.check(req);
      reply(await deps.operators.token(b));
    }),
    defineRoute(OPERATOR_GROUPS.operations.createGroup, async ({ req, res, body, reply }) => {
      const w = await wallet(req);
      if (!deps.operators.mayCreateGroups(w))
        throw new ServiceError('forbidden', 'This wallet may not create groups (ORCHESTRATOR_WALLETS).');
      const b = body<CreateGroupRequest>();
      reply(
        await visible(res, () => createGroup(deps.ctx, w, { limits: limitsInput(b.default_limits ?? b) })),
      );
    }),
    // The caller's own groups: which ones, from the read models (a group's owner never changes); what
    // each holds, from the log. A group just created is listed: its creation answered once the views had it.
    defineRoute(OPERATOR_GROUPS.operations.listGroups, async ({ req, reply }) => {
      const w = await wallet(req);
      reply(await listGroups(deps.ctx, w, await groupsOwnedBy(deps.views, w)));
    }),
    defineRoute(OPERATOR_GROUPS.operations.getGroup, async ({ req, param, reply }) =>
      reply(await describeGroup(deps.ctx, await wallet(req), param('group'))),
    ),
    // Reconciliation of the log with the chain (docs/audit.md): the discrepancies, none when clean.
    defineRoute(OPERATOR_AUDIT.operations.reconcileGroup, async ({ req, param, query, reply }) => {
      const w = await wallet(req);
      const q = query<ReconciliationQuery>();
      const from = q.from === undefined ? undefined : Date.parse(q.from);
      const to = q.to === undefined ? undefined : Date.parse(q.to);
      if (from !== undefined && to !== undefined && from > to)
        throw new ServiceError('validation_error', 'The window ends before it starts (from is after to).', [
          { path: '/from', issue: 'after to' },
        ]);
      reply(
        await reconcileGroup(deps.ctx, w, param('group'), {
          ...(from !== undefined && { from }),
          ...(to !== undefined && { to }),
        }),
      );
    }),
    defineRoute(
      OPERATOR_ALLOW_LIST.operations.addWhitelistEntry,
      async ({ req, res, param, body, reply }) => {
        const w = await wallet(req);
        const b = body<WhitelistRequest>();
        reply(
          await visible(res, () =>
            addWhitelistEntry(deps.ctx, w, param('group'), {
              address: b.address,
              type: b.type,
              ...(b.label !== undefined && { label: b.label }),
              ...(b.approved_amount !== undefined && { approved_amount: b.approved_amount }),
              ...(b.ttl_seconds !== undefined && { ttl_seconds: b.ttl_seconds }),
            }),
          ),
        );
      },
    ),
    defineRoute(OPERATOR_ALLOW_LIST.operations.removeWhitelistEntry, async ({ req, res, param, reply }) => {
      const w = await wallet(req);
      reply(await visible(res, () => removeWhitelistEntry(deps.ctx, w, param('group'), param('entry'))));
    }),
    defineRoute(OPERATOR_AGENTS.operations.inviteAgent, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<InvitationRequest>();
      res.setHeader('cache-control', 'no-store');
      reply(
        await visible(res, () =>
          invite(deps.ctx, w, param('group'), {
            limits: limitsInput(b),
            ...(b.label !== undefined && { label: b.label }),
          }),
        ),
      );
    }),
    defineRoute(OPERATOR_AGENTS.operations.changeLimits, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<LimitsChangeRequest>();
      reply(await visible(res, () => changeLimits(deps.ctx, w, param('agent'), limitsInput(b))));
    }),
    defineRoute(OPERATOR_AGENTS.operations.revokeAgent, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      body();
      reply(await visible(res, () => revoke(deps.ctx, w, param('agent'))));
    }),
    defineRoute(OPERATOR_AGENTS.operations.emergencyWithdraw, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<EmergencyWithdrawRequest>();
      reply(await visible(res, () => emergencyWithdraw(deps.ctx, w, param('agent'), b)));
    }),
    defineRoute(OPERATOR_AGENTS.operations.rotateKey, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      body();
      res.setHeader('cache-control', 'no-store');
      reply(await visible(res, () => rotateKey(deps.ctx, w, param('agent'))));
    }),
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

/** The public reads of what a spend needs (REFERENCE_OPERATIONS): tokens, venues, pools. */
export function referenceRoutes(deps: ApiDeps): Route[] {
  return [
    defineRoute(AGENT_REFERENCE.operations.listTokens, ({ reply }) =>
      reply({
        tokens: deps.ctx.chain.tokens.map(({ symbol, mint, decimals }) => ({ symbol, mint, decimals })),
      }),
    ),
    defineRoute(AGENT_REFERENCE.operations.listVenues, ({ reply }) => reply(venueListing(deps.ctx.venues))),
    defineRoute(AGENT_REFERENCE.operations.listPools, async ({ reply }) => {
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
