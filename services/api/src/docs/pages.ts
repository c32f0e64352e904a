/**
 * API reference pages: each served OpenAPI document rendered in the browser by Scalar's standalone
 * bundle, which the service serves itself (renderer.ts). The pages load nothing from any other host:
 * no CDN, no fonts, no proxy, no AI agent, no developer toolbar; their Content-Security-Policy allows
 * this service only (docsPolicy below).
 */
import { Router } from 'express';
import helmet from 'helmet';
import { RENDERER_URL, serveRenderer } from './renderer';

export interface DocPage {
  /** Where the page is served. */
  path: string;
  /** The OpenAPI document it renders (served by this service). */
  document: string;
  title: string;
}

/** Every reference page: one row each. */
export const DOC_PAGES: readonly DocPage[] = [
  { path: '/docs', document: '/api/v1/openapi.json', title: 'Token operations: agent API' },
  { path: '/v1/docs', document: '/v1/openapi.json', title: 'Token operations: agent API (variant)' },
  {
    path: '/orchestrator/docs',
    document: '/api/v1/orchestrator/openapi.json',
    title: 'Token operations: operator API',
  },
];

/**
 * The pages' policy, in place of the API's `default-src 'none'`: scripts, data and images from this
 * service only. Styles also allow 'unsafe-inline', which the renderer cannot do without: it injects
 * its stylesheet and theme as <style> elements at run time and sets style attributes (about twenty
 * refusals without it, and an unstyled page); hashes cannot name either in advance. Scripts stay
 * 'self' alone: no inline script, no eval; the renderer's configuration is a non-executable JSON
 * element that the bundle reads.
 */
const docsPolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    connectSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'], // data: for the pages' empty icon (else a browser asks for /favicon.ico)
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
});

/**
 * The renderer's settings: the document from this service, and every feature that would reach
 * another host off (its fonts, its request proxy, its AI agent, its share and registry toolbar).
 * Trying a request stays: the documents' servers are relative, so it calls this service.
 */
const configuration = (page: DocPage) => ({
  url: page.document,
  withDefaultFonts: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  telemetry: false,
  defaultOpenAllTags: true,
  metaData: { title: page.title },
});

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function pageHtml(page: DocPage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<link rel="icon" href="data:,">
</head>
<body>
<script id="api-reference" type="application/json" data-configuration="${escapeHtml(JSON.stringify(configuration(page)))}"></script>
<script src="${RENDERER_URL}"></script>
</body>
</html>
`;
}

export function docsRoutes(pages: readonly DocPage[] = DOC_PAGES): Router {
  const router = Router();
  for (const page of pages) {
    const html = pageHtml(page);
    router.get(page.path, docsPolicy, (_req, res) => void res.type('html').send(html));
  }
  router.get(RENDERER_URL, serveRenderer);
  return router;
}
