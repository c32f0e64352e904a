/**
 * The operator console (packages/console) at /console: its page and its bundle, under a policy that
 * allows this service only: scripts, styles, data and images from here, nothing inline, no other host.
 */
import express, { Router } from 'express';
import helmet from 'helmet';
import { ServiceError } from '@tokenops/shared';
import {
  CONSOLE_ASSETS_DIR,
  CONSOLE_ASSETS_PATH,
  CONSOLE_HTML,
  CONSOLE_PATH,
  consoleBuilt,
} from '@tokenops/console';

export const consolePolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    connectSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'], // data: for the empty icon (else a browser asks for /favicon.ico)
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
});

export function consoleRoutes(): Router {
  const router = Router();
  router.get(CONSOLE_PATH, consolePolicy, (_req, res) => {
    if (!consoleBuilt())
      throw new ServiceError('service_unavailable', 'The console is not built: run npm run console:build.');
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(CONSOLE_HTML);
  });
  router.use(
    CONSOLE_ASSETS_PATH,
    consolePolicy,
    express.static(CONSOLE_ASSETS_DIR, { index: false, fallthrough: true }),
  );
  return router;
}
