/**
 * Routes from a contract's table of operations (shared/src/contract: openapi.ts, operator-openapi.ts,
 * variant-openapi.ts), as Fastify's route `schema` feeds its OpenAPI plugin: each row is registered
 * with its method and path; its path parameters, query and body are validated against the contract's
 * schemas when the handler reads them (so a handler checks who is calling first, as the contract says:
 * a 401 before a 400; with `checkResponses` on, a handler that answers without reading them fails),
 * and its answers (successes and errors alike) are
 * checked against the row with `checkResponses` on. The same rows build the
 * OpenAPI documents. Handlers are looked up by operation id: a row without a handler, or a handler
 * without a row, stops the service at start.
 */
import { Router, type Request, type Response } from 'express';
import {
  answerViolations,
  stringifyJson,
  validate,
  type ContractDescription,
  type Operation,
  type SchemaName,
  type ValidationDetail,
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

/** The operation ids of the rows that have no handler, and of the handlers that have no row. */
export function unmatchedHandlers(
  operations: readonly Operation<string, string>[],
  handlers: Record<string, Handler>,
): string[] {
  const ids = new Set(operations.map((op) => op.operationId));
  return [
    ...[...ids].filter((id) => !handlers[id]).map((id) => `${id}: no handler`),
    ...Object.keys(handlers)
      .filter((id) => !ids.has(id))
      .map((id) => `${id}: no operation`),
  ];
}

/**
 * A router serving `operations` (the contract's rows, all of them unless a part is given), mounted at
 * `base` (for the route template; the caller mounts the router there), each by its handler.
 */
export function mount<Name extends string, TagName extends string>(
  contract: ContractDescription<Name, TagName>,
  handlers: Record<string, Handler>,
  options: SendOptions & { base: string },
  operations: readonly Operation<Name, TagName>[] = contract.operations,
): Router {
  const unmatched = unmatchedHandlers(operations, handlers);
  if (unmatched.length > 0) throw new Error(`${contract.title}: ${unmatched.join('; ')}`);
  const router = Router();
  for (const operation of operations) {
    const path = expressPath(operation.path);
    const served: Served = {
      operation,
      contract: contract as unknown as ContractDescription<string, string>,
      template: `${options.base}${path}`,
    };
    const handler = handlers[operation.operationId]!;
    const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    // GET and DELETE bodies are not read by the app (body.ts, jsonBody): a row that takes one reads it here.
    const reading = operation.request && (operation.method === 'get' || operation.method === 'delete');
    router[operation.method](path, ...(reading ? [readJsonBody] : []), async (req, res) => {
      res.locals.served = served;
      bodyFailure(req);
      const read = { body: !operation.request, query: !operation.query, params: names.length === 0 };
      // The path parameters are validated at the first read of any input, before the body and query.
      const params = () => {
        if (read.params) return;
        for (const name of names)
          validate(contract.pathParameters as SchemaName, { [name]: req.params[name] });
        read.params = true;
      };
      await handler({
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
            throw new Error(
              `${operation.operationId} answered without reading its parameters, body or query`,
            );
          send(res, status, body, options);
        },
      });
    });
  }
  return router;
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
