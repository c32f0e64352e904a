/**
 * The operator OpenAPI document covers the operator surface as the routers register it: every route of
 * the operator routers (read from the Express routers themselves) is an operation of the document,
 * and the document names no route they do not register.
 */
import type { Router } from 'express';
import { OPERATOR_OPERATIONS } from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { auditRoutes } from '../audit/routes';
import { fleetWebhookRoutes } from '../webhooks/routes';
import { orchestratorRoutes } from './routes';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** `method path` of every route a router registers, its parameters written as OpenAPI's `{name}`. */
const routesOf = (router: Router): string[] =>
  (router.stack as RouteLayer[]).flatMap(({ route }) =>
    route ? Object.keys(route.methods).map((m) => `${m} ${route.path.replace(/:(\w+)/g, '{$1}')}`) : [],
  );

describe('the operator document and the operator routers', () => {
  // The routers only close over their dependencies: building them reads none.
  const deps = {} as ApiDeps;
  const registered = [orchestratorRoutes, fleetWebhookRoutes, auditRoutes].flatMap((r) => routesOf(r(deps)));
  const documented = OPERATOR_OPERATIONS.map((op) => `${op.method} ${op.path}`);

  it('reads the routes off the routers', () => {
    expect(registered).toContain('post /orchestrator/auth/challenge');
    expect(registered).toContain('delete /orchestrator/webhooks/{webhook}');
  });

  it('documents every route the routers register, and no other', () => {
    expect([...documented].sort()).toEqual([...new Set(registered)].sort());
  });
});
