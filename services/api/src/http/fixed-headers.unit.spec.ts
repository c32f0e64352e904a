import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import type { AddressInfo } from 'node:net';
import { fixedHeaders } from './fixed-headers';

/**
 * The headers of an answer of an app that uses `middleware`, the date left out; Express's own
 * x-powered-by is off unless `poweredBy`.
 */
async function headersWith(middleware: RequestHandler, poweredBy = false): Promise<[string, string][]> {
  const app = express();
  if (!poweredBy) app.disable('x-powered-by');
  app.use(middleware);
  app.get('/', (_req, res) => void res.json({ ok: true }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return [...res.headers].filter(([name]) => name !== 'date');
  } finally {
    server.close();
  }
}

describe('fixedHeaders', () => {
  const options = {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
  };

  it('sets exactly the headers helmet sets on each answer', async () => {
    const direct = await headersWith(helmet(options));
    expect(direct.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'content-security-policy',
        'strict-transport-security',
        'x-content-type-options',
      ]),
    );
    expect(await headersWith(fixedHeaders(helmet(options)))).toEqual(direct);
  });

  it('removes what the middleware removes', async () => {
    const removing: RequestHandler = (_req, res, next) => {
      res.removeHeader('x-powered-by');
      next();
    };
    const names = async (m: RequestHandler) => (await headersWith(m, true)).map(([name]) => name);
    expect(await names((_req, _res, next) => next())).toContain('x-powered-by'); // Express's own
    expect(await names(fixedHeaders(removing))).not.toContain('x-powered-by'); // the removal replayed
  });

  it('refuses, at start, a middleware whose headers depend on the request', () => {
    const perRequest: RequestHandler = (req, res, next) => {
      res.setHeader('x-path', req.path);
      next();
    };
    expect(() => fixedHeaders(perRequest)).toThrow('read the request (path)');
    const later: RequestHandler = (_req, _res, next) => void setImmediate(next);
    expect(() => fixedHeaders(later)).toThrow('did not go on at once');
  });
});
