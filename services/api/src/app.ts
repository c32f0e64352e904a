/**
 * The HTTP service: the agent contract under /api/v1 (and its variant under /v1), the same operations as
 * MCP tools at /mcp, the operator surface, health. Wiring only.
 */
import express from 'express';
import helmet from 'helmet';
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  ServiceError,
  openApiDocument,
  operatorOpenApiDocument,
  variantOpenApiDocument,
} from '@tokenops/shared';
import { assessDependencies, readinessAnswer } from '@tokenops/shared/process';
import type { ApiDeps } from './deps';
import { consoleRoutes } from './console/route';
import { DOC_PAGES, docsRoutes } from './docs/pages';
import { bearer } from './http/auth';
import { jsonBody } from './http/body';
import { fixedHeaders } from './http/fixed-headers';
import { errorHandler, notFound, requestContext } from './http/middleware';
import { mcpRoutes } from './mcp/routes';
import { contractRoutes } from './routes';
import { VARIANT_PREFIX } from './variant/routes';

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (deps.trustProxyHops) app.set('trust proxy', deps.trustProxyHops);
  app.use(requestContext(deps.logger, deps.metrics));
  // The usual security headers; the API answers JSON only, so the policy allows no content at all.
  // They are the same on every answer: taken from helmet once (fixed-headers.ts).
  app.use(
    fixedHeaders(
      helmet({
        contentSecurityPolicy: {
          useDefaults: false,
          directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
        },
      }),
    ),
  );
  app.use(jsonBody);
  // The contracts first: a router passes a request over each route mounted before the one that takes it.
  const { agent, operator, variant, variantFleet } = contractRoutes(deps);
  app.use(agent, operator); // each under /api/v1
  app.use(variant, variantFleet); // the variant contract, and its path of fleet webhooks, under /v1
  app.get('/api/v1/openapi.json', (_req, res) => void res.json(openApiDocument()));
  app.get('/api/v1/orchestrator/openapi.json', (_req, res) => void res.json(operatorOpenApiDocument()));
  app.get(`${VARIANT_PREFIX}/openapi.json`, (_req, res) => void res.json(variantOpenApiDocument()));
  app.use(mcpRoutes(deps)); // POST /mcp: the agent operations as MCP tools (Streamable HTTP)
  // Where a newcomer lands: the operator console, the reference pages and the OpenAPI documents they render.
  app.get(
    '/',
    (_req, res) =>
      void res.json({
        service: 'tokenops',
        console: '/console',
        docs: DOC_PAGES.map((p) => ({ title: p.title, page: p.path, openapi: p.document })),
      }),
  );
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    const answer = readinessAnswer(await assessDependencies(deps.dependencies));
    res.status(answer.status).json(answer.body);
  });
  if (deps.metrics && deps.metricsToken) {
    const { registry } = deps.metrics;
    const expected = digest(deps.metricsToken);
    app.get('/metrics', async (req, res) => {
      const given = bearer(req);
      if (!given || !timingSafeEqual(digest(given), expected))
        throw new ServiceError('unauthorized', 'Send Authorization: Bearer <METRICS_TOKEN>.');
      res.setHeader('cache-control', 'no-store');
      res.type(registry.contentType).send(await registry.metrics());
    });
  }
  app.use(docsRoutes()); // the API reference pages (HTML, with a policy of their own)
  app.use(consoleRoutes()); // the operator console (HTML and its bundle, with a policy of their own)
  app.use(notFound);
  app.use(errorHandler(deps.logger, deps.clientLimit, deps.checkResponses));
  return app;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
