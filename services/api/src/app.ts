/**
 * The HTTP service: the agent contract under /api/v1 (and its variant under /v1), the same operations as
 * MCP tools at /mcp, the operator surface, health. Wiring only.
 */
import express from 'express';
import helmet from 'helmet';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ServiceError, openApiDocument, operatorOpenApiDocument } from '@tokenops/shared';
import { failingDependencies, readinessAnswer } from '@tokenops/shared/process';
import type { ApiDeps } from './deps';
import { auditRoutes } from './audit/routes';
import { DOC_PAGES, docsRoutes } from './docs/pages';
import { bearer } from './http/auth';
import { errorHandler, jsonBody, notFound, requestContext } from './http/middleware';
import { intentRoutes } from './intents/routes';
import { mcpRoutes } from './mcp/routes';
import { onboardingRoutes } from './onboarding/routes';
import { orchestratorRoutes } from './orchestrator/routes';
import { stateRoutes } from './state/routes';
import { fleetWebhookRoutes, webhookRoutes } from './webhooks/routes';
import { VARIANT_PREFIX, variantRoutes } from './variant/routes';

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (deps.trustProxyHops) app.set('trust proxy', deps.trustProxyHops);
  app.use(requestContext(deps.logger, deps.metrics));
  // The usual security headers; the API answers JSON only, so the policy allows no content at all.
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
    }),
  );
  // Where a newcomer lands: the reference pages and the OpenAPI documents they render.
  app.get(
    '/',
    (_req, res) =>
      void res.json({
        service: 'tokenops',
        docs: DOC_PAGES.map((p) => ({ title: p.title, page: p.path, openapi: p.document })),
      }),
  );
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    const answer = readinessAnswer(await failingDependencies(deps.dependencies));
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
  app.get('/api/v1/openapi.json', (_req, res) => void res.json(openApiDocument()));
  app.get('/api/v1/orchestrator/openapi.json', (_req, res) => void res.json(operatorOpenApiDocument()));
  app.use(docsRoutes()); // the API reference pages (HTML, with a policy of their own)
  app.use(jsonBody);
  app.use(mcpRoutes(deps)); // POST /mcp: the agent operations as MCP tools (Streamable HTTP)
  const v1 = express.Router();
  v1.use(
    onboardingRoutes(deps),
    intentRoutes(deps),
    stateRoutes(deps),
    webhookRoutes(deps),
    fleetWebhookRoutes(deps),
    orchestratorRoutes(deps),
    auditRoutes(deps),
  );
  app.use('/api/v1', v1);
  app.use(VARIANT_PREFIX, variantRoutes(deps), fleetWebhookRoutes(deps)); // the variant contract, and its path of fleet webhooks
  app.use(notFound);
  app.use(errorHandler(deps.logger, deps.clientLimit, deps.checkResponses));
  return app;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
