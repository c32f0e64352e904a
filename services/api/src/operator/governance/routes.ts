/**
 * Governance: the kill switch (an agent or a whole group frozen by any one admin, at once:
 * shared/src/application/freeze.ts) and proposals (lifting a freeze: proposed with 202, executed once a
 * quorum of admins signed: shared/src/application/proposals.ts). Writes answer once the agent views
 * include them.
 */
import {
  OPERATOR_GOVERNANCE,
  cancelProposal,
  freezeAgent,
  freezeGroup,
  groupOfAgent,
  getProposal,
  listProposals,
  propose,
  readProposalSecret,
  signProposal,
  type CancelProposalRequest,
  type FreezeRequest,
  type ProposalsQuery,
  type SignProposalRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls } from '../common';

export function governanceRoutes(deps: ApiDeps): Route[] {
  const { ctx } = deps;
  const rows = OPERATOR_GOVERNANCE.operations;
  const { wallet, visible } = operatorCalls(deps);
  return [
    defineRoute(rows.freezeAgent, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<FreezeRequest>() ?? {};
      reply(await visible(res, () => freezeAgent(ctx, w, param('agent'), b)));
    }),
    defineRoute(rows.freezeGroup, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<FreezeRequest>() ?? {};
      reply(await visible(res, () => freezeGroup(ctx, w, param('group'), b)));
    }),
    defineRoute(rows.unfreezeAgent, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      body();
      const agent = param('agent');
      reply(await propose(ctx, w, await groupOfAgent(ctx, agent), 'agent.unfreeze', { agent }));
    }),
    defineRoute(rows.unfreezeGroup, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      body();
      reply(await propose(ctx, w, param('group'), 'group.unfreeze', {}));
    }),
    defineRoute(rows.listProposals, async ({ req, param, query, reply }) => {
      const w = await wallet(req);
      reply(await listProposals(ctx, w, param('group'), query<ProposalsQuery>().status));
    }),
    defineRoute(rows.getProposal, async ({ req, param, reply }) =>
      reply(await getProposal(ctx, await wallet(req), param('proposal'))),
    ),
    defineRoute(rows.signProposal, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<SignProposalRequest>();
      reply(await visible(res, () => signProposal(ctx, w, param('proposal'), b.signature)));
    }),
    defineRoute(rows.getProposalSecret, async ({ req, res, param, reply }) => {
      const w = await wallet(req);
      res.setHeader('cache-control', 'no-store');
      reply(await readProposalSecret(ctx, w, param('proposal')));
    }),
    defineRoute(rows.cancelProposal, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<CancelProposalRequest>() ?? {};
      reply(await cancelProposal(ctx, w, param('proposal'), b.reason));
    }),
  ];
}
