/**
 * A route is declared once, as Fastify's are: `defineRoute(row, handler)` puts a row of a contract
 * (shared/src/contract: one file per tag) and its handler together, and `mount` serves a contract's
 * routes. Each row is registered with its method and path; its path parameters, query and body are
 * validated against the contract's schemas when the handler reads them (so a handler checks who is
 * calling first, as the contract says: a 401 before a 400; with `checkResponses` on, a handler that
 * answers without reading them fails), and its answers (successes and errors alike) are checked
 * against the row with `checkResponses` on. The same rows build the OpenAPI documents. A row of the
 * contract with no route, a row with two, or a route whose row is not the contract's stops the service
 * at start. A request finds its row in one lookup of a radix tree (find-my-way, Fastify's router), as
 * Express would match it (any case, with or without a trailing slash), rather than by trying each
 * row's pattern in turn.
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Request, RequestHandler, Response } from 'express';
import {
  answerViolations,
  stringifyJson,
  validate,
  type ContractDescription,
  type Operation,
  type SchemaName,
  type ValidationDetail,
  validationError,
} from '@tokenops/shared';
import type { Logger } from '@tokenops/shared/process';
import { bodyFailure, readJsonBody } from './body';

export interface SendOptions {
  /** Check each answer against its operation's row (on in tests and development). */
  checkResponses: boolean;
  logger: Logger;
}

/** What a handler is given: the request, and its input and answer as its row describes them. */
export interface Call {
  req: Request;
  res: Response;
  /** The body, validated against the row's request schema (defaults applied). */
  body<T>(): T;
  /** The query, validated (and coerced) against the row's query schema. */
  query<T>(): T;
  /**
   * A path parameter of the row's path. The first read of any input (a parameter, the body, the
   * query) validates the parameters first (400 validation_error).
   */
  param(name: string): string;
  /** Answers JSON with the row's success status (or `status`). */
  reply(body: unknown, status?: number): void;
}

export type Handler = (call: Call) => unknown;

/** A row of a contract and the handler that serves it. */
export interface Route {
  readonly operation: Operation<string, string>;
  readonly handler: Handler;
}

/** The route of a row: the row itself (not its operation id) and its handler, in one place. */
export const defineRoute = (operation: Operation<string, string>, handler: Handler): Route => ({
  operation,
  handler,
});

/** The route of a request, once a row took it (for its answer's check, its log line and metrics). */
export interface Served {
  operation: Operation<string, string>;
  contract: ContractDescription<string, string>;
  /** The route's template, as the service serves it (`/api/v1/orchestrator/groups/:group`). */
  template: string;
}

/** The row that took the request, if one did. */
export const servedOf = (res: Response): Served | undefined => res.locals.served as Served | undefined;

const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

const named = (op: Operation<string, string>) => `${op.method.toUpperCase()} ${op.path} (${op.operationId})`;

/** What keeps `routes` from serving `operations`: a row with no route, a row with two, a route of another row. */
export function routeProblems(
  operations: readonly Operation<string, string>[],
  routes: readonly Route[],
): string[] {
  const served = new Map<Operation<string, string>, number>();
  for (const route of routes) served.set(route.operation, (served.get(route.operation) ?? 0) + 1);
  return [
    ...operations.filter((op) => !served.has(op)).map((op) => `${named(op)}: no route`),
    ...[...served]
      .filter(([op, count]) => count > 1 && operations.includes(op))
      .map(([op, count]) => `${named(op)}: defined ${count} times`),
    ...[...served.keys()]
      .filter((op) => !operations.includes(op))
      .map((op) => `${named(op)}: a route of no row of this contract`),
  ];
}

/**
 * A middleware serving `operations` (the contract's rows, all of them unless a part is given) under
 * `base`, each by its route; the app uses it without a mount path (it matches the whole path, so
 * Express neither matches a prefix nor rewrites the URL for it). A request no row takes goes on (to the
 * next contract's rows, then the 404); a path that does not decode is refused.
 */
export function mount<Name extends string, TagName extends string>(
  contract: ContractDescription<Name, TagName>,
  routes: readonly Route[],
  options: SendOptions & { base: string },
  operations: readonly Operation<Name, TagName>[] = contract.operations,
): ContractRoutes {
  const problems = routeProblems(operations, routes);
  if (problems.length > 0) throw new Error(`${contract.title}: ${problems.join('; ')}`);
  const handlerOf = new Map(routes.map((r) => [r.operation, r.handler]));
  const tree = FindMyWay({
    caseSensitive: false,
    ignoreTrailingSlash: true,
    maxParamLength: MAX_PARAM_LENGTH,
    onBadUrl: () => undefined, // found without a route of ours: refused below
  });
  for (const operation of operations) {
    const path = expressPath(operation.path);
    const served: Served = {
      operation,
      contract: contract as unknown as ContractDescription<string, string>,
      template: `${options.base}${path}`,
    };
    const serve = serving(operation, contract, handlerOf.get(operation)!, served, options);
    const method = operation.method.toUpperCase() as HTTPMethod;
    // find-my-way's own handler is never called: the middleware below runs the row kept as its store.
    const route: Registered = { serve, served };
    tree.on(method, served.template, () => undefined, route);
    if (method === 'GET') tree.on('HEAD', served.template, () => undefined, route); // as Express: GET answers HEAD
  }
  const find = (method: string, url: string) => tree.find(method as HTTPMethod, url);
  const middleware: RequestHandler = (req, res, next) => {
    const found = find(req.method, req.url);
    if (!found) return next();
    const route = found.store as Registered | null;
    if (!route)
      return next(
        validationError([{ path: '', issue: 'the request is malformed: its path does not decode' }]),
      );
    req.params = found.params as Record<string, string>;
    route.serve(req, res, next);
  };
  return Object.assign(middleware, {
    rowOf: (method: string, url: string) =>
      (find(method, url)?.store as Registered | null | undefined)?.served,
  });
}

/** A contract's routes: a middleware, and the row a request would reach (undefined when none). */
export type ContractRoutes = RequestHandler & {
  rowOf(method: string, url: string): Served | undefined;
};

/** A row as the radix tree keeps it: how it is served, and what it is. */
interface Registered {
  serve: RequestHandler;
  served: Served;
}

/** Longer path parameters are read, then refused by the contract's schemas, rather than left unmatched (404). */
const MAX_PARAM_LENGTH = 8192;

/** One row's route: its body read when it takes one, then its handler; a failure goes to `next`. */
function serving(
  operation: Operation<string, string>,
  contract: ContractDescription<string, string>,
  handler: Handler,
  served: Served,
  options: SendOptions,
): RequestHandler {
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const run: RequestHandler = (req, res, next) => {
    res.locals.served = served;
    const read = { body: !operation.request, query: !operation.query, params: names.length === 0 };
    // The path parameters are validated at the first read of any input, before the body and query.
    const params = () => {
      if (read.params) return;
      for (const name of names) validate(contract.pathParameters as SchemaName, { [name]: req.params[name] });
      read.params = true;
    };
    const call: Call = {
      req,
      res,
      body: <T>() => {
        params();
        read.body = true;
        return validate<T>(operation.request as SchemaName, req.json ?? {});
      },
      query: <T>() => {
        params();
        read.query = true;
        return validate<T>(operation.query as SchemaName, { ...req.query });
      },
      param: (name) => {
        params();
        return req.params[name] as string;
      },
      reply: (body, status = operation.status ?? 200) => {
        // A handler answers only once it has read (validated) what its row says it takes.
        if (options.checkResponses && !(read.body && read.query && read.params))
          throw new Error(`${operation.operationId} answered without reading its parameters, body or query`);
        send(res, status, body, options);
      },
    };
    try {
      bodyFailure(req);
      Promise.resolve(handler(call)).catch(next);
    } catch (err) {
      next(err);
    }
  };
  // GET and DELETE bodies are not read by the app (body.ts, jsonBody): a row that takes one reads it here.
  const reading = operation.request && (operation.method === 'get' || operation.method === 'delete');
  return reading ? (req, res, next) => readJsonBody(req, res, () => run(req, res, next)) : run;
}

/** Answers JSON (exact decimals), checked against the route's row when `checkResponses` is on. */
export function send(res: Response, status: number, body: unknown, options: SendOptions): void {
  const text = stringifyJson(body);
  if (options.checkResponses) checkAnswer(res, status, text, options.logger);
  // What Express's res.send would write for this text, without its content negotiation and freshness
  // checks (no ETag or Last-Modified is ever set here): a read answers in a fraction of a millisecond.
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

/**
 * Throws when an answer (its status and JSON text) is not what the row of its route says: a status it
 * does not list, a body its schema refuses, an error code it does not list. Answers of no row (health,
 * unknown paths) are not checked.
 */
export function checkAnswer(res: Response, status: number, text: string, logger: Logger): void {
  const served = servedOf(res);
  if (!served) return;
  const { operation, contract } = served;
  failOn(
    answerViolations(operation, contract, status, JSON.parse(text)),
    `response ${status} to ${operation.method.toUpperCase()} ${operation.path} does not match the ${contract.title} document`,
    logger,
  );
}

/** Throws when an answer (or a streamed line) breaks its contract: logged, and a 500 in tests. */
export function failOn(violations: ValidationDetail[], what: string, logger: Logger): void {
  if (violations.length === 0) return;
  logger.error(what, { violations });
  throw new Error(`${what}: ${JSON.stringify(violations)}`);
}
