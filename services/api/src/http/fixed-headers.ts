/**
 * Headers that are the same on every answer, taken once at start from the middleware that sets them
 * (helmet): run once against a response that records what it is told, then replayed on each request.
 * Helmet configured without per-request values (no nonce, no directive computed from the request)
 * sets the same headers every time; replaying them costs a loop of `setHeader`, where helmet runs a
 * dozen middleware functions and builds its policy text on every request. A middleware that reads
 * the request, calls anything else on the response, or does not go on at once is refused at start.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

type Change = { set: string; value: string | number | readonly string[] } | { remove: string };

export function fixedHeaders(middleware: RequestHandler): RequestHandler {
  const changes: Change[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) =>
      void changes.push({ set: name, value }),
    removeHeader: (name: string) => void changes.push({ remove: name }),
  };
  let wentOn = false;
  const next: NextFunction = (err?: unknown) => {
    if (err) throw err;
    wentOn = true;
  };
  const request = new Proxy(
    {},
    {
      get: (_target, name) => {
        throw new Error(
          `fixedHeaders: the middleware read the request (${String(name)}): its headers are not fixed`,
        );
      },
    },
  );
  void middleware(request as Request, Object.freeze(recorder) as unknown as Response, next);
  if (!wentOn)
    throw new Error('fixedHeaders: the middleware did not go on at once: its headers are not fixed');
  return (_req, res, next) => {
    for (const change of changes)
      if ('set' in change) res.setHeader(change.set, change.value);
      else res.removeHeader(change.remove);
    next();
  };
}
