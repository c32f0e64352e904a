/**
 * The operator surface's routes, one list per tag of its document (shared/src/contract/operator-openapi.ts),
 * each in its tag's folder beside the tag's tests. Keyed by the document's tags: a tag added there
 * does not compile until its routes are listed here, and mount (http/operations.ts) refuses at start a
 * row with no route. The reference reads the document shares with the agent's are served by the
 * agent's routes (reference/routes.ts); this tag's list holds the airdrop.
 */
import type { OperatorTagName } from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import type { Route } from '../http/operations';
import { activityRoutes } from './activity/routes';
import { agentRoutes } from './agents/routes';
import { allowListRoutes } from './allow-list/routes';
import { approvalRoutes } from './approvals/routes';
import { auditRoutes } from './audit/routes';
import { auditorRoutes } from './auditors/routes';
import { governanceRoutes } from './governance/routes';
import { groupRoutes } from './groups/routes';
import { guardRoutes } from './guard/routes';
import { memberRoutes } from './members/routes';
import { airdropRoutes } from './reference/routes';
import { signInRoutes } from './sign-in/routes';
import { fleetWebhookRoutes } from './webhooks/routes';

export const OPERATOR_ROUTES: { readonly [Tag in OperatorTagName]: (deps: ApiDeps) => Route[] } = {
  'sign-in': signInRoutes,
  groups: groupRoutes,
  'allow-list': allowListRoutes,
  agents: agentRoutes,
  members: memberRoutes,
  governance: governanceRoutes,
  activity: activityRoutes,
  approvals: approvalRoutes,
  guard: guardRoutes,
  webhooks: fleetWebhookRoutes,
  auditors: auditorRoutes,
  audit: auditRoutes,
  reference: airdropRoutes,
};

/** Every tag's routes, by tag. */
export const operatorRoutes = (deps: ApiDeps) =>
  Object.fromEntries(Object.entries(OPERATOR_ROUTES).map(([tag, routes]) => [tag, routes(deps)])) as {
    [Tag in OperatorTagName]: Route[];
  };
