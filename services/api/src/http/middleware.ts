/**
 * The HTTP edge: request ids and access logs, JSON bodies read without float loss (lossless-json) and
 * as strict UTF-8, the body size limit, the content type, the error envelope for everything that goes
 * wrong (failed authentication counted per client address), and responses written from exact decimals.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  DependencyUnavailable,
  ServiceError,
  WrongExpectedRevision,
  agentAnswerViolations,
  decodeUtf8,
  operatorAnswerViolations,
  parseJson,
  responseViolations,
  serveInSpan,
  stringifyJson,
  validate,
  validationError,
  variantErrorBody,
  type SchemaName,
} from '@tokenops/shared';
import type { Logger, Metrics } from '@tokenops/shared/process';
import { AUTHENTICATION_FAILURES, type ClientRateLimit } from './rate-limit';
import { templateFor } from './route-templates';

export const MAX_BODY_BYTES = 64 * 1024;

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    /** The parsed JSON body (numbers that a float cannot hold stay their decimal text). */
    json?: unknown;
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
      const matched = rememberRoute(req);
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const path = pathOf(req.originalUrl);
        const route = matched() ?? templateFor(req.app, req.method, path) ?? 'unmatched';
        const labels = { method: req.method, route, status: String(res.statusCode) };
        const code = errorCodeOf(res) ?? '';
        answered(route, res.statusCode);
        metrics?.httpDuration.observe(labels, seconds);
        metrics?.httpRequests.inc({ ...labels, code });
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
 * The template of the route that took the request (`/api/v1/transfer`), if one did. Taken when the
 * router matches it: `req.baseUrl` is the mount path then, but no longer once an error has left the
 * router, which is when refusals are answered.
 */
function rememberRoute(req: Request): () => string | undefined {
  let route: unknown;
  let template: string | undefined;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set: (value: { path?: unknown } | undefined) => {
      route = value;
      if (value) template = `${req.baseUrl}${String(value.path)}`;
    },
  });
  return () => template;
}

const pathOf = (url: string): string => url.split('?', 1)[0]!;

/** The error code an answer carried (set by the error handler), for the log line and the metric. */
const errorCodeOf = (res: Response): string | undefined => res.locals.errorCode as string | undefined;

const tooLarge = () =>
  validationError(
    [{ path: '', issue: `the body is over ${MAX_BODY_BYTES} bytes` }],
    `Send a body of at most ${MAX_BODY_BYTES} bytes.`,
  );

/**
 * Reads a JSON body: application/json, at most 64 KiB, valid UTF-8, valid JSON, every string storable;
 * each failure is validation_error.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'DELETE') return next();
  readJsonBody(req, res, next);
};

/** The same reading for any method: a route that takes a body with DELETE mounts it itself. */
export const readJsonBody: RequestHandler = (req, _res, next) => {
  const declared = Number(req.header('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) return next(tooLarge());
  const type = req.header('content-type') ?? '';
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES && !failed) {
      failed = true;
      next(tooLarge());
    } else if (!failed) chunks.push(chunk);
  });
  req.on('error', (err) => {
    if (!failed) next(err);
  });
  req.on('end', () => {
    if (failed) return;
    try {
      const text = decodeUtf8(Buffer.concat(chunks));
      if (text.trim() === '' && !type) {
        req.json = {};
        return next();
      }
      if (!/^application\/json\b/i.test(type)) {
        return next(
          validationError(
            [{ path: '', issue: 'the body must be JSON, sent with Content-Type: application/json' }],
            'Send the body as application/json.',
          ),
        );
      }
      req.json = parseJson(text);
      next();
    } catch (err) {
      next(err);
    }
  });
};

/** Validates the JSON body against a contract schema (applies defaults); the typed body. */
export const bodyOf = <T>(req: Request, schema: SchemaName): T => validate<T>(schema, req.json ?? {});

export interface SendOptions {
  /** Check each answer against its schema (on in tests and development). */
  checkResponses: boolean;
  logger: Logger;
}

export function send(
  res: Response,
  status: number,
  body: unknown,
  schema: SchemaName | undefined,
  options: SendOptions,
): void {
  const text = stringifyJson(body);
  if (options.checkResponses) {
    if (schema) checkAgainst(schema, text, options);
    checkDocumentedAnswer(res.req, status, text, options.logger);
  }
  res.status(status).type('application/json').send(text);
}

/** Checks one JSON text against a schema when `checkResponses` is on (a streamed line too); throws when it does not match. */
export function checkAgainst(schema: SchemaName, text: string, options: SendOptions): void {
  if (!options.checkResponses) return;
  const violations = responseViolations(schema, JSON.parse(text));
  if (violations.length === 0) return;
  options.logger.error('response does not match the contract', { schema, violations });
  throw new Error(`response does not match ${schema}: ${JSON.stringify(violations)}`);
}

const DOCUMENTS = [
  ['agent', agentAnswerViolations],
  ['operator', operatorAnswerViolations],
] as const;

/**
 * Checks an answer against the OpenAPI documents that describe its route (the agent's, openapi.ts; the
 * operator's, operator-openapi.ts): a status it lists for the operation, a body its schema describes,
 * an error code it lists. Throws otherwise.
 */
function checkDocumentedAnswer(req: Request, status: number, text: string, logger: Logger): void {
  const path = req.originalUrl.split('?')[0]!;
  for (const [document, violationsOf] of DOCUMENTS) {
    const violations = violationsOf(req.method, path, status, JSON.parse(text));
    if (!violations || violations.length === 0) continue;
    logger.error(`response does not match the ${document} document`, { path, status, violations });
    throw new Error(
      `response ${status} to ${req.method} ${path} does not match the ${document} document: ${JSON.stringify(violations)}`,
    );
  }
}

/** Unknown routes: the envelope, 404. */
export const notFound: RequestHandler = (req, _res, next) =>
  next(new ServiceError('not_found', `No route ${req.method} ${req.path}.`));

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
  if (error.code === 'rate_limited' || error.code === 'service_unavailable')
    res.setHeader('Retry-After', String(error.retryAfterSeconds ?? 1));
  if (res.headersSent) return;
  // Every 401 names its scheme (RFC 9110 §11.6.1): a bearer credential. Nothing more: there is no
  // OAuth authorization server, so no resource_metadata (an MCP host would start an OAuth flow for it).
  if (error.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  res.locals.errorCode = error.code;
  const body = isVariantPath(req.originalUrl) ? variantErrorBody(error) : error.toBody();
  const text = stringifyJson(body);
  if (checkResponses) checkDocumentedAnswer(req, error.status, text, logger);
  res.status(error.status).type('application/json').send(text);
}

/** The variant contract's paths (/v1): their errors nest the code, as the variant names it. */
export const isVariantPath = (url: string): boolean => /^\/v1(?:[/?#]|$)/.test(url);

/**
 * 503, retry later: a dependency that did not answer (the adapters raise DependencyUnavailable), or a
 * write that kept meeting other instances' writes to its stream past the repository's patience.
 */
export const isUnavailable = (err: unknown): boolean =>
  err instanceof DependencyUnavailable || err instanceof WrongExpectedRevision;
