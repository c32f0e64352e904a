/**
 * Every contract's routes, mounted: the agent's under /api/v1 (one list per tag of its document, each
 * in its tag's folder), the operator's beside it (operator/routes.ts; the reference reads both
 * documents list are served once, by the agent's routes), the variant's under /v1, and the operator's
 * webhook routes again under /v1 with the variant's error envelope.
 */
import {
  AGENT_CONTRACT,
  OPERATOR_CONTRACT,
  OPERATOR_WEBHOOKS,
  VARIANT_CONTRACT,
  variantCode,
  type AgentTagName,
  type ContractDescription,
} from '@tokenops/shared';
import type { ApiDeps } from './deps';
import { defineRoute, mount, type Route } from './http/operations';
import { clientAddress, isOwnCall } from './http/rate-limit';
import { intentRoutes } from './intents/routes';
import { onboardingRoutes } from './onboarding/routes';
import { operatorRoutes } from './operator/routes';
import { referenceRoutes } from './reference/routes';
import { stateRoutes } from './state/routes';
import { VARIANT_PREFIX, variantRoutes } from './variant/routes';
import { webhookRoutes } from './webhooks/routes';

/** The agent's routes by tag of its document (shared/src/contract/agent-openapi.ts). */
export const AGENT_ROUTES: { readonly [Tag in AgentTagName]: (deps: ApiDeps) => Route[] } = {
  onboarding: onboardingRoutes,
  intents: intentRoutes,
  state: stateRoutes,
  webhooks: webhookRoutes,
  reference: referenceRoutes,
};

/**
 * A public row's route, its request counted against the client address's limit (the sign-in routes'
 * or the public reads') before its handler runs; a signed-in row's is counted once its caller is known
 * (http/auth.ts, operator/common.ts). A public read the MCP endpoint makes for a tool call was counted
 * there, against the agent (mcp/routes.ts).
 */
function limitedByAddress(deps: ApiDeps, route: Route): Route {
  const { operation, handler } = route;
  if (!operation.public) return route;
  return defineRoute(operation, async (call) => {
    // Read at the call: building the routes closes over their dependencies and reads none.
    const limit = operation.signIn ? deps.limits.signIn : deps.limits.public;
    if (!isOwnCall(call.req)) await limit.consume(clientAddress(call.req), call.res);
    return handler(call);
  });
}

export function contractRoutes(deps: ApiDeps) {
  const at = (base: string) => ({ checkResponses: deps.checkResponses, logger: deps.logger, base });
  const limited = (routes: Route[]) => routes.map((route) => limitedByAddress(deps, route));
  const operator = Object.fromEntries(
    Object.entries(operatorRoutes(deps)).map(([tag, routes]) => [tag, limited(routes)]),
  ) as ReturnType<typeof operatorRoutes>;
  const agentRows = new Set<object>(AGENT_CONTRACT.operations);
  return {
    agent: mount(
      AGENT_CONTRACT,
      limited(Object.values(AGENT_ROUTES).flatMap((routes) => routes(deps))),
      at('/api/v1'),
    ),
    operator: mount(
      OPERATOR_CONTRACT,
      Object.values(operator).flat(),
      at('/api/v1'),
      OPERATOR_CONTRACT.operations.filter((op) => !agentRows.has(op)),
    ),
    variant: mount(VARIANT_CONTRACT, limited(variantRoutes(deps)), at(VARIANT_PREFIX)),
    variantFleet: mount(
      {
        ...(OPERATOR_CONTRACT as ContractDescription<string, string>),
        errorBody: 'VariantErrorBody',
        codeName: variantCode,
      },
      operator.webhooks,
      at(VARIANT_PREFIX),
      Object.values(OPERATOR_WEBHOOKS.operations),
    ),
  };
}
