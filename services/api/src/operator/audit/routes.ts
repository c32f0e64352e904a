/**
 * The audit: the owner and the auditors read the group's events (a page, or all of them as NDJSON),
 * verify their hash chain, read the story of one intent; the owner reconciles the log with the chain
 * (docs/audit.md). Queries and path parameters pass their schemas before anything is read.
 */
import type { Response } from 'express';
import {
  OPERATOR_AUDIT,
  ServiceError,
  auditPage,
  auditScope,
  decodeCursor,
  intentStory,
  readGroupLog,
  reconcileGroup,
  responseViolations,
  verifyLog,
  type VerificationQuery,
  type AuditEventsQuery,
  type AuditFilter,
  type ReconciliationQuery,
} from '@tokenops/shared';
import type { OpenStreams } from '@tokenops/shared/process';
import type { ApiDeps } from '../../deps';
import { defineRoute, failOn, type Route, type SendOptions } from '../../http/operations';
import { operatorCalls } from '../common';

const NDJSON = 'application/x-ndjson';

export function auditRoutes(deps: ApiDeps): Route[] {
  const { ctx } = deps;
  const { wallet } = operatorCalls(deps);
  const audit = OPERATOR_AUDIT.operations;

  return [
    // Reconciliation of the log with the chain (docs/audit.md): the discrepancies, none when clean.
    defineRoute(audit.reconcileGroup, async ({ req, param, query, reply }) => {
      const w = await wallet(req);
      const q = query<ReconciliationQuery>();
      const from = q.from === undefined ? undefined : Date.parse(q.from);
      const to = q.to === undefined ? undefined : Date.parse(q.to);
      if (from !== undefined && to !== undefined && from > to)
        throw new ServiceError('validation_error', 'The window ends before it starts (from is after to).', [
          { path: '/from', issue: 'after to' },
        ]);
      reply(
        await reconcileGroup(deps.ctx, w, param('group'), {
          ...(from !== undefined && { from }),
          ...(to !== undefined && { to }),
        }),
      );
    }),
    defineRoute(audit.auditEvents, async ({ req, res, param, query, reply }) => {
      const w = await wallet(req);
      const q = query<AuditEventsQuery & { limit: number }>();
      const filter: AuditFilter = {
        ...(q.from !== undefined && { from: Date.parse(q.from) }),
        ...(q.to !== undefined && { to: Date.parse(q.to) }),
        ...(q.agent !== undefined && { agent: q.agent }),
        ...(q.type !== undefined && { types: q.type.split(',') }),
      };
      res.setHeader('cache-control', 'no-store');
      if (req.accepts(['application/json', NDJSON]) !== NDJSON) {
        reply(
          await auditPage(ctx, w, param('group'), {
            ...filter,
            ...(q.cursor !== undefined && { cursor: q.cursor }),
            limit: q.limit,
          }),
        );
        return;
      }
      const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      const scope = await auditScope(ctx, w, param('group'));
      await streamEvents(res, deps, deps.streams, async (write) => {
        // The range is the log as it is now: events appended while it streams are for the next read.
        const until = await ctx.store.headPosition();
        await readGroupLog(ctx.store, scope, filter, { ...(after && { after }), until, onEvent: write });
      });
    }),
    defineRoute(audit.verifyGroupLog, async ({ req, res, param, query, reply }) => {
      const w = await wallet(req);
      const q = query<VerificationQuery>();
      await auditScope(ctx, w, param('group'));
      const expect = (q.expect ? q.expect.split(',') : []).map((pair) => {
        const [events, digest] = pair.split(':') as [string, string];
        return { events: Number(events), digest };
      });
      res.setHeader('cache-control', 'no-store');
      reply(await verifyLog(ctx.store, { groupId: param('group'), expect }));
    }),
    defineRoute(audit.intentStory, async ({ req, res, param, reply }) => {
      const w = await wallet(req);
      res.setHeader('cache-control', 'no-store');
      reply(await intentStory(ctx, deps.deliveries, w, param('intent')));
    }),
  ];
}

/**
 * Streams NDJSON: one event a line, written as the log is read, in chunks of about 64 KiB (one write
 * per event would cost more than reading it), waiting for the client to drain what it was sent
 * (backpressure) and stopping when it goes away. A failure once lines are out cuts the response (the
 * client sees it incomplete); before that, the error envelope answers. So does a stop of the service
 * before the range is out (`streams`): the read stops and the response is cut, its last whole line
 * the event to read on after (its `position` as the cursor).
 */
async function streamEvents(
  res: Response,
  options: SendOptions,
  streams: OpenStreams,
  read: (write: (event: unknown) => Promise<boolean>) => Promise<void>,
): Promise<void> {
  const stopped = streams.follow(res);
  let chunk = '';
  const flush = async () => {
    if (!res.headersSent) res.status(200).type(NDJSON);
    if (!chunk || stopped.aborted) return;
    const full = !res.write(chunk);
    chunk = '';
    if (full)
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          stopped.removeEventListener('abort', done);
          resolve();
        };
        res.on('drain', done);
        stopped.addEventListener('abort', done);
      });
  };
  const write = async (event: unknown): Promise<boolean> => {
    if (stopped.aborted) return false;
    // Plain JSON.stringify: the log's events hold JSON only (no bigint), and a replacer costs a call per value.
    const line = JSON.stringify(event);
    // With checkResponses: each line is one event of the operator document.
    if (options.checkResponses)
      failOn(
        responseViolations('AuditEventView', JSON.parse(line)),
        'a streamed line does not match AuditEventView',
        options.logger,
      );
    chunk += `${line}
`;
    if (chunk.length >= CHUNK) await flush();
    return !stopped.aborted;
  };
  try {
    await read(write);
    await flush();
  } catch (err) {
    if (!res.headersSent) throw err;
    res.destroy(err as Error);
    return;
  }
  // Ended before the range was out (the service stops; or the client went, and this changes nothing).
  if (stopped.aborted) res.destroy();
  else res.end();
}

const CHUNK = 64 * 1024;
