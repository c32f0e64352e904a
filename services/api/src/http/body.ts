/**
 * Reading a JSON body: application/json, at most 64 KiB, valid UTF-8, valid JSON, every string
 * storable (lossless-json: numbers a float cannot hold stay their decimal text); each failure is
 * validation_error. A failure is kept on the request and thrown by the route that takes it (its row
 * known then: http/operations.ts), or by the 404 of a path no route takes.
 */
import type { Request, RequestHandler } from 'express';
import { decodeUtf8, parseJson, validationError } from '@tokenops/shared';

export const MAX_BODY_BYTES = 64 * 1024;

declare module 'express-serve-static-core' {
  interface Request {
    /** The parsed JSON body (numbers that a float cannot hold stay their decimal text). */
    json?: unknown;
    /** Why the body could not be read, thrown where the request is answered. */
    bodyFailure?: unknown;
  }
}

/** Throws why the request's body could not be read, if it could not. */
export function bodyFailure(req: Request): void {
  if (req.bodyFailure !== undefined) throw req.bodyFailure;
}

export const tooLarge = () =>
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
  const failed = (err: unknown) => {
    req.bodyFailure = err;
    next();
  };
  const declared = Number(req.header('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) return failed(tooLarge());
  const type = req.header('content-type') ?? '';
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES && !refused) {
      refused = true;
      failed(tooLarge());
    } else if (!refused) chunks.push(chunk);
  });
  req.on('error', (err) => {
    if (!refused) failed(err);
  });
  req.on('end', () => {
    if (refused) return;
    try {
      const text = decodeUtf8(Buffer.concat(chunks));
      if (text.trim() === '' && !type) {
        req.json = {};
        return next();
      }
      if (!/^application\/json\b/i.test(type)) {
        return failed(
          validationError(
            [{ path: '', issue: 'the body must be JSON, sent with Content-Type: application/json' }],
            'Send the body as application/json.',
          ),
        );
      }
      req.json = parseJson(text);
      next();
    } catch (err) {
      failed(err);
    }
  });
};
