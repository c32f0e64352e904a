/**
 * Routes are declared once, a row with its handler: every row of every contract is registered, with
 * its method and path; a row without a route, a row defined twice, or a route whose row is not the
 * contract's stops the service at start.
 */
import {
  AGENT_CONTRACT,
  OPERATOR_CONTRACT,
  VARIANT_CONTRACT,
  type ContractDescription,
  type Operation,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { contractRoutes } from '../routes';
import { defineRoute, mount, routeProblems, type ContractRoutes } from './operations';

/** A request to a row under `base`, its path parameters given as `x`. */
const requestTo = (op: Operation<string, string>, base: string) => ({
  method: op.method.toUpperCase(),
  url: `${base}${op.path.replace(/\{\w+\}/g, 'x')}`,
});

/** The rows of `contract` that `routes` take, and every one of them taken to its own row. */
const rowsTaken = (
  routes: ContractRoutes,
  contract: ContractDescription<string, string>,
  base = '/api/v1',
): string[] =>
  contract.operations.flatMap((op) => {
    const { method, url } = requestTo(op, base);
    const served = routes.rowOf(method, url);
    if (!served) return [];
    expect(served.operation).toBe(op);
    return [`${op.method} ${op.path}`];
  });
const rowsOf = (contract: ContractDescription<string, string>) =>
  contract.operations.map((op) => `${op.method} ${op.path}`);

describe('the routes of the contracts', () => {
  // Building the routers only closes over their dependencies: it reads none.
  const routes = contractRoutes({} as ApiDeps);

  it('takes a request to every row of each contract to that row', () => {
    expect(rowsTaken(routes.agent, AGENT_CONTRACT)).toEqual(rowsOf(AGENT_CONTRACT));
    expect(rowsTaken(routes.variant, VARIANT_CONTRACT, '/v1')).toEqual(rowsOf(VARIANT_CONTRACT));
    // The reference reads both documents list are served once, by the agent's routes.
    const operatorOnly = rowsTaken(routes.operator, OPERATOR_CONTRACT);
    expect([...operatorOnly, ...rowsTaken(routes.agent, OPERATOR_CONTRACT)].sort()).toEqual(
      rowsOf(OPERATOR_CONTRACT).sort(),
    );
    expect(operatorOnly.filter((row) => rowsOf(AGENT_CONTRACT).includes(row))).toEqual([]);
    expect(rowsTaken(routes.variantFleet, OPERATOR_CONTRACT, '/v1')).toContain(
      'delete /orchestrator/webhooks/{webhook}',
    );
  });

  it('matches a path as Express did: in any case, with or without a trailing slash, GET answering HEAD', () => {
    const limits = AGENT_CONTRACT.operations.find((op) => op.operationId === 'getLimits')!;
    for (const url of ['/api/v1/limits', '/API/V1/LIMITS', '/api/v1/limits/', '/api/v1/limits?x=1'])
      expect(routes.agent.rowOf('GET', url)?.operation).toBe(limits);
    expect(routes.agent.rowOf('HEAD', '/api/v1/limits')?.operation).toBe(limits);
    expect(routes.agent.rowOf('POST', '/api/v1/limits')).toBeUndefined(); // no such row: the next routes, then 404
    for (const url of ['/api/v1/limitsx', '/api/v1/limits/x', '/limits', '/v1/limits/x'])
      expect(routes.agent.rowOf('GET', url)).toBeUndefined();
  });

  it('refuses a row without a route, a row defined twice, and a route whose row is not the contract’s', () => {
    const named = (op: Operation<string, string>) =>
      `${op.method.toUpperCase()} ${op.path} (${op.operationId})`;
    const [first, ...rest] = VARIANT_CONTRACT.operations;
    const none = () => undefined;
    const routes = rest.map((op) => defineRoute(op, none));
    const options = { checkResponses: true, logger: {} as never, base: '/v1' };
    expect(routeProblems(VARIANT_CONTRACT.operations, routes)).toEqual([`${named(first!)}: no route`]);
    expect(() => mount(VARIANT_CONTRACT, routes, options)).toThrow(`${named(first!)}: no route`);
    const all = [defineRoute(first!, none), ...routes];
    expect(() => mount(VARIANT_CONTRACT, all, options)).not.toThrow();
    expect(() => mount(VARIANT_CONTRACT, [...all, defineRoute(first!, none)], options)).toThrow(
      `${named(first!)}: defined 2 times`,
    );
    // A row is the row itself, not its operation id and path: the primary's transfer is not the variant's.
    const primary = AGENT_CONTRACT.operations.find((op) => op.operationId === 'transfer')!;
    expect(VARIANT_CONTRACT.operations.map(named)).toContain(named(primary));
    expect(() => mount(VARIANT_CONTRACT, [...all, defineRoute(primary, none)], options)).toThrow(
      `${named(primary)}: a route of no row of this contract`,
    );
  });
});
