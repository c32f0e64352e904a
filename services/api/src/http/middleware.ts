/**
 * The HTTP edge: request ids and access logs, the error envelope for everything that goes wrong
 * (failed authentication counted per client address), checked against the route's row like every
 * answer (operations.ts). Bodies are read in body.ts.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  DependencyUnavailable,
  ServiceError,
  WrongExpectedRevision,
  serveInSpan,
  stringifyJson,
  validationError,
  variantErrorBody,
} from '@tokenops/shared';
import type { Logger, Metrics } from '@tokenops/shared/process';
import { bearer } from './auth';
import { bodyFailure, tooLarge } from './body';
import { checkAnswer, servedOf } from './operations';
import { AUTHENTICATION_FAILURES, type ClientRateLimit } from './rate-limit';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

/**
 * The request's id, and its access log line and metrics once answered: the route template (the same
 * for every status, `unmatched` for unknown paths: never the raw path, whose ids would make a label
 * per agent) and, for a refusal, its error code. With tracing on, the request is a server span named
 * after its method and route template (`POST /api/v1/transfer`).
 */
export function requestContext(logger: Logger, metrics?: Metrics): RequestHandler {
  return (req, res, next) =>
    serveInSpan(req, (answered) => {
      const given = req.header('x-request-id');
      req.id = given && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', req.id);
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const path = pathOf(req.originalUrl);
        const route = servedOf(res)?.template ?? routeOf(req) ?? 'unmatched';
        const labels = { method: req.method, route, status: String(res.statusCode) };
        const code = errorCodeOf(res) ?? '';
        answered(route, res.statusCode);
        metrics?.httpDuration.observe(labels, seconds);
        metrics?.httpRequests.inc({ ...labels, code });
        // Below LOG_LEVEL=info the line is not built at all (winston would build it, then drop it).
        if (!logger.isInfoEnabled()) return;
        logger.info('request', {
          request_id: req.id,
          method: req.method,
          route,
          path,
          status: res.statusCode,
          ...(code && { code }),
          ms: seconds * 1e3,
        });
      });
      next();
    });
}

/**
 * The template of a route no operation row describes (health, metrics, MCP, the console), if one took
 * the request: the path of the last route Express matched (`req.route`, which it leaves set once the
 * request has left the route). Those routes are mounted at the root, so their path is the whole
 * template; a row's route names its template itself (operations.ts).
 */
function routeOf(req: Request): string | undefined {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : undefined;
}

const pathOf = (url: string): string => url.split('?', 1)[0]!;

/** The error code an answer carried (set by the error handler), for the log line and the metric. */
const errorCodeOf = (res: Response): string | undefined => res.locals.errorCode as string | undefined;

/** Unknown routes: the envelope, 404 (or why the body could not be read, as on any route). */
export const notFound: RequestHandler = (req) => {
  bodyFailure(req);
  throw new ServiceError('not_found', `No route ${req.method} ${req.path}.`);
};

/** A failure of the HTTP layer itself (Express, its router): its status, when it has a 4xx one. */
function httpStatusOf(err: unknown): number | undefined {
  const e = err as { status?: unknown; statusCode?: unknown } | undefined;
  const status = typeof e?.status === 'number' ? e.status : e?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Everything that went wrong, as the envelope. A ServiceError keeps its code; a 4xx of the HTTP layer
 * (a path that does not decode, a body too large) is validation_error; anything else is
 * internal_error (or service_unavailable), its text only in the log. A failed authentication counts
 * against the client's address, and past the limit the answer is rate_limited instead. Under /v1 the
 * envelope is the variant's (`{"error": {"code", "message", "details"?}}`, two codes renamed).
 */
export function errorHandler(logger: Logger, clientLimit?: ClientRateLimit, checkResponses = false) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    void answerError(err, req, res, logger, clientLimit, checkResponses).catch((failure: unknown) => {
      logger.error('error handler failed', { request_id: req.id, error: String(failure) });
      if (!res.headersSent) res.status(500).end();
    });
  };
}

async function answerError(
  err: unknown,
  req: Request,
  res: Response,
  logger: Logger,
  clientLimit: ClientRateLimit | undefined,
  checkResponses: boolean,
): Promise<void> {
  let error: ServiceError;
  const httpStatus = httpStatusOf(err);
  if (err instanceof ServiceError) error = err;
  else if (httpStatus === 413 || (err as { type?: string }).type === 'entity.too.large') error = tooLarge();
  else if (httpStatus !== undefined) {
    error = validationError([
      { path: '', issue: `the request is malformed: ${(err as Error).message ?? 'unreadable'}` },
    ]);
  } else {
    logger.error('unhandled error', {
      request_id: req.id,
      error: err instanceof Error ? err.stack : String(err),
    });
    error = new ServiceError(isUnavailable(err) ? 'service_unavailable' : 'internal_error');
  }
  if (clientLimit && AUTHENTICATION_FAILURES.has(error.code))
    error = (await clientLimit.failed(req)) ?? error;
  if (error.code === 'rate_limited' || error.code === 'service_unavailable' || error.retryAfterSeconds)
    res.setHeader('Retry-After', String(error.retryAfterSeconds ?? 1));
  if (res.headersSent) return;
  // Every 401 names its scheme (RFC 9110 §11.6.1): a bearer credential. Nothing more: there is no
  // OAuth authorization server, so no resource_metadata (an MCP host would start an OAuth flow for it).
  if (error.status === 401) res.setHeader('WWW-Authenticate', bearerChallenge(req));
  res.locals.errorCode = error.code;
  const body = isVariantPath(req.originalUrl) ? variantErrorBody(error) : error.toBody();
  const text = stringifyJson(body);
  if (checkResponses) checkAnswer(res, error.status, text, logger);
  res.status(error.status).type('application/json').send(text);
}

/**
 * The challenge of a 401 (RFC 6750 §3.1): `Bearer error="invalid_token"` when the request sent a bearer
 * credential that was not accepted (unknown, malformed, revoked, rotated out, expired); a bare `Bearer`
 * when it sent none, since a request without credentials is told only how to authenticate. Every
 * surface (agent routes on both contracts, /mcp, the operator routes, /metrics) reads the credential
 * with `bearer` and answers its 401 here.
 */
export const bearerChallenge = (req: Request): string =>
  bearer(req) === undefined ? 'Bearer' : 'Bearer error="invalid_token"';

/** The variant contract's paths (/v1): their errors nest the code, as the variant names it. */
export const isVariantPath = (url: string): boolean => /^\/v1(?:[/?#]|$)/.test(url);

/**
 * 503, retry later: a dependency that did not answer (the adapters raise DependencyUnavailable), or a
 * write that kept meeting other instances' writes to its stream past the repository's patience.
 */
export const isUnavailable = (err: unknown): boolean =>
  err instanceof DependencyUnavailable || err instanceof WrongExpectedRevision;
