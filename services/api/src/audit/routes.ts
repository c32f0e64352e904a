/**
 * Auditors' access and the audit query. The owner of a group grants and removes auditors (wallets that
 * sign in like operators, with the same challenge and the same token); the owner and the auditors
 * read the group's events and the story of one intent. An auditor owns nothing, so every operator
 * route (which checks ownership) answers it 403. Bodies, queries and path parameters pass their
 * schemas (operator-schemas.ts) before anything is read.
 */
import { Router, type Request, type Response } from 'express';
import {
  auditPage,
  auditScope,
  decodeCursor,
  grantAuditor,
  intentStory,
  readGroupLog,
  removeAuditor,
  validate,
  verifyLog,
  type VerificationQuery,
  type AuditEventsQuery,
  type AuditFilter,
  type AuditorRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { bearer } from '../http/auth';
import { bodyOf, checkAgainst, readJsonBody, send, type SendOptions } from '../http/middleware';

const NDJSON = 'application/x-ndjson';

export function auditRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { ctx } = deps;
  const ok = (res: Response, body: unknown, status = 200) => send(res, status, body, undefined, deps);
  const wallet = (req: Request) => deps.operators.wallet(bearer(req));
  for (const name of ['group', 'intent'] as const)
    router.param(name, (_req, _res, next, value: string) => {
      validate('PathParams', { [name]: value });
      next();
    });
  const param = (req: Request, name: 'group' | 'intent'): string => req.params[name] as string;

  router.post('/orchestrator/groups/:group/auditors', async (req, res) => {
    const w = await wallet(req);
    const body = bodyOf<AuditorRequest>(req, 'AuditorRequest');
    ok(res, await grantAuditor(ctx, w, param(req, 'group'), body.wallet), 201);
  });
  router.delete('/orchestrator/groups/:group/auditors', readJsonBody, async (req, res) => {
    const w = await wallet(req);
    const body = bodyOf<AuditorRequest>(req, 'AuditorRequest');
    ok(res, await removeAuditor(ctx, w, param(req, 'group'), body.wallet));
  });

  router.get('/audit/groups/:group/events', async (req, res) => {
    const w = await wallet(req);
    const q = validate<AuditEventsQuery & { limit: number }>('AuditEventsQuery', { ...req.query });
    const filter: AuditFilter = {
      ...(q.from !== undefined && { from: Date.parse(q.from) }),
      ...(q.to !== undefined && { to: Date.parse(q.to) }),
      ...(q.agent !== undefined && { agent: q.agent }),
      ...(q.type !== undefined && { types: q.type.split(',') }),
    };
    res.setHeader('cache-control', 'no-store');
    if (req.accepts(['application/json', NDJSON]) !== NDJSON) {
      ok(
        res,
        await auditPage(ctx, w, param(req, 'group'), {
          ...filter,
          ...(q.cursor !== undefined && { cursor: q.cursor }),
          limit: q.limit,
        }),
      );
      return;
    }
    const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    const scope = await auditScope(ctx, w, param(req, 'group'));
    await streamEvents(res, deps, async (write) => {
      // The range is the log as it is now: events appended while it streams are for the next read.
      const until = await ctx.store.headPosition();
      await readGroupLog(ctx.store, scope, filter, { ...(after && { after }), until, onEvent: write });
    });
  });

  router.get('/audit/groups/:group/verification', async (req, res) => {
    const w = await wallet(req);
    const q = validate<VerificationQuery>('VerificationQuery', { ...req.query });
    await auditScope(ctx, w, param(req, 'group'));
    const expect = (q.expect ? q.expect.split(',') : []).map((pair) => {
      const [events, digest] = pair.split(':') as [string, string];
      return { events: Number(events), digest };
    });
    res.setHeader('cache-control', 'no-store');
    ok(res, await verifyLog(ctx.store, { groupId: param(req, 'group'), expect }));
  });

  router.get('/audit/intents/:intent', async (req, res) => {
    const w = await wallet(req);
    res.setHeader('cache-control', 'no-store');
    ok(res, await intentStory(ctx, deps.deliveries, w, param(req, 'intent')));
  });
  return router;
}

/**
 * Streams NDJSON: one event a line, written as the log is read, in chunks of about 64 KiB (one write
 * per event would cost more than reading it), waiting for the client to drain what it was sent
 * (backpressure) and stopping when it goes away. A failure once lines are out cuts the response (the
 * client sees it incomplete); before that, the error envelope answers.
 */
async function streamEvents(
  res: Response,
  options: SendOptions,
  read: (write: (event: unknown) => Promise<boolean>) => Promise<void>,
): Promise<void> {
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  let chunk = '';
  const flush = async () => {
    if (!res.headersSent) res.status(200).type(NDJSON);
    if (!chunk || closed) return;
    const full = !res.write(chunk);
    chunk = '';
    if (full)
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
  };
  const write = async (event: unknown): Promise<boolean> => {
    if (closed) return false;
    // Plain JSON.stringify: the log's events hold JSON only (no bigint), and a replacer costs a call per value.
    const line = JSON.stringify(event);
    checkAgainst('AuditEventView', line, options); // with checkResponses: each line is one event of the operator document
    chunk += `${line}
`;
    if (chunk.length >= CHUNK) await flush();
    return !closed;
  };
  try {
    await read(write);
    await flush();
  } catch (err) {
    if (!res.headersSent) throw err;
    res.destroy(err as Error);
    return;
  }
  res.end();
}

const CHUNK = 64 * 1024;
