/**
 * Routes come from the contracts' tables: every row of every contract is registered, with its method
 * and path, by the handler of its operation id; a row without a handler or a handler without a row
 * stops the service at start.
 */
import type { Router } from 'express';
import {
  AGENT_CONTRACT,
  OPERATOR_CONTRACT,
  VARIANT_CONTRACT,
  type ContractDescription,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { contractRoutes } from '../app';
import { mount, unmatchedHandlers } from './operations';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** `method path` of every route a router registers, its parameters written as OpenAPI's `{name}`. */
const routesOf = (router: Router): string[] =>
  (router.stack as RouteLayer[]).flatMap(({ route }) =>
    route ? Object.keys(route.methods).map((m) => `${m} ${route.path.replace(/:(\w+)/g, '{$1}')}`) : [],
  );
const rowsOf = (contract: ContractDescription<string, string>) =>
  contract.operations.map((op) => `${op.method} ${op.path}`);

describe('the routes of the contracts', () => {
  // Building the routers only closes over their dependencies: it reads none.
  const routes = contractRoutes({} as ApiDeps);

  it('registers every row of each contract, and nothing else', () => {
    expect(routesOf(routes.agent).sort()).toEqual(rowsOf(AGENT_CONTRACT).sort());
    expect(routesOf(routes.variant).sort()).toEqual(rowsOf(VARIANT_CONTRACT).sort());
    // The reference reads both documents list are served once, by the agent's routes.
    expect([...routesOf(routes.operator), ...routesOf(routes.agent)].sort()).toEqual(
      [...new Set([...rowsOf(OPERATOR_CONTRACT), ...rowsOf(AGENT_CONTRACT)])].sort(),
    );
    expect(routesOf(routes.variantFleet)).toContain('delete /orchestrator/webhooks/{webhook}');
  });

  it('refuses a row without a handler and a handler without a row', () => {
    const [first, ...rest] = VARIANT_CONTRACT.operations;
    const handlers = Object.fromEntries(rest.map((op) => [op.operationId, () => undefined]));
    expect(unmatchedHandlers(VARIANT_CONTRACT.operations, handlers)).toEqual([
      `${first!.operationId}: no handler`,
    ]);
    expect(unmatchedHandlers(rest, { ...handlers, extra: () => undefined })).toEqual(['extra: no operation']);
    const options = { checkResponses: true, logger: {} as never, base: '/v1' };
    expect(() => mount(VARIANT_CONTRACT, handlers, options)).toThrow(`${first!.operationId}: no handler`);
    expect(() =>
      mount(VARIANT_CONTRACT, { ...handlers, [first!.operationId]: () => undefined }, options),
    ).not.toThrow();
  });
});
