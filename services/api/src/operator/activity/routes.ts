/**
 * What a group's agents do, as the console reads it beyond the group itself: each agent's use of its
 * limits now with its balances, spend over time, and the group's events as server-sent events,
 * streamed from the log and resumable by Last-Event-ID.
 */
import type { Request, Response } from 'express';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  OPERATOR_ACTIVITY,
  auditPage,
  auditScope,
  decodeCursor,
  groupUsage,
  ownedGroup,
  readGroupLog,
  responseViolations,
  spendOverTime,
  validationError,
  type LogPosition,
  type GroupEventsQuery,
  type SpendQuery,
} from '@tokenops/shared';
import { balancesOf } from '@tokenops/projections';
import type { ApiDeps } from '../../deps';
import { bearer } from '../../http/auth';
import { defineRoute, failOn, type Route } from '../../http/operations';
import { operatorCalls } from '../common';

/** How often a stream looks for new events once it has sent what the log held. */
export const EVENTS_POLL_MS = 300;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
const EVENT_STREAM = 'text/event-stream';

/** The position the client's Last-Event-ID names (a cursor this service handed out), if it sent one. */
function lastEventId(req: Request): string | undefined {
  const id = req.get('last-event-id');
  if (id === undefined || id === '') return undefined;
  try {
    decodeCursor(id);
  } catch {
    throw validationError([{ path: '/Last-Event-ID', issue: 'is not an event id this service sent' }]);
  }
  return id;
}

export function activityRoutes(deps: ApiDeps): Route[] {
  const { ctx } = deps;
  const rows = OPERATOR_ACTIVITY.operations;
  const { wallet } = operatorCalls(deps);

  return [
    defineRoute(rows.groupUsage, async ({ req, param, reply }) => {
      const agents = await groupUsage(ctx, await wallet(req), param('group'));
      const balances = await Promise.all(
        agents.map((a) => balancesOf(deps.views, a.agent_wallet_pda, ctx.chain.tokens)),
      );
      reply({
        agents: agents.map((a, i) => ({
          ...a,
          balances: Object.fromEntries(
            Object.entries(balances[i]!).map(([symbol, amount]) => [symbol, amount.toFixed()]),
          ),
        })),
      });
    }),
    defineRoute(rows.groupSpend, async ({ req, res, param, query, reply }) => {
      const w = await wallet(req);
      const { window } = query<SpendQuery & { window: '24h' | '7d' }>();
      res.setHeader('cache-control', 'no-store');
      reply(await spendOverTime(ctx, w, param('group'), window));
    }),
    defineRoute(rows.groupEvents, async ({ req, res, param, query, reply }) => {
      const w = await wallet(req);
      const group = param('group');
      const { since } = query<GroupEventsQuery>();
      const filter = since === undefined ? {} : { from: Date.parse(since) };
      await ownedGroup(ctx, w, group, 'read');
      const after = lastEventId(req);
      res.setHeader('cache-control', 'no-store');
      if (req.accepts(['application/json', EVENT_STREAM]) !== EVENT_STREAM) {
        reply(
          await auditPage(ctx, w, group, {
            ...filter,
            ...(after !== undefined && { cursor: after }),
            limit: 100,
          }),
        );
        return;
      }
      const scope = await auditScope(ctx, w, group);
      // The stream lasts as long as the token: once it expires the stream ends, and the client's
      // reconnection is answered 401 (it signs in again and resumes from its Last-Event-ID). The
      // stream counted once against the wallet's rate limit, when it was asked for.
      const signedIn = () =>
        deps.operators.wallet(bearer(req)).then(
          () => true,
          () => false,
        );
      await streamEvents(
        signedIn,
        res,
        deps,
        async (from, write) => {
          const { last } = await readGroupLog(ctx.store, scope, filter, {
            ...(from && { after: from }),
            onEvent: write,
          });
          return last;
        },
        after === undefined ? undefined : decodeCursor(after),
      );
    }),
  ];
}

/**
 * Server-sent events until the client goes, its token expires or the service stops: what the log holds
 * after `from`, then, every EVENTS_POLL_MS, what was logged since. Each message's id is the event's
 * position, so a client that reconnects with it (Last-Event-ID) goes on from the next event. A stop
 * ends the stream at once after the last whole message (deps.streams).
 */
async function streamEvents(
  signedIn: () => Promise<boolean>,
  res: Response,
  deps: ApiDeps,
  read: (
    from: LogPosition | undefined,
    write: (event: { position: string; type: string }) => Promise<boolean>,
  ) => Promise<LogPosition>,
  from: LogPosition | undefined,
): Promise<void> {
  const done = deps.streams.follow(res);
  res.status(200).set({ 'content-type': EVENT_STREAM, 'x-accel-buffering': 'no' });
  res.flushHeaders();
  // Waits for a slow client to take what it was sent (backpressure) before reading on.
  const write = async (event: { position: string; type: string }): Promise<boolean> => {
    if (done.aborted) return false;
    if (deps.checkResponses)
      failOn(
        responseViolations('AuditEventView', event),
        'a streamed event does not match AuditEventView',
        deps.logger,
      );
    const message = `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    if (!res.write(message)) await once(res, 'drain', { signal: done }).catch(() => undefined);
    return !done.aborted;
  };
  let quietSince = Date.now();
  try {
    while (!done.aborted && (await signedIn())) {
      const before = from;
      from = await read(from, write);
      if (before !== from) quietSince = Date.now();
      else if (Date.now() - quietSince >= KEEP_ALIVE_MS) {
        res.write(': keep-alive\n\n');
        quietSince = Date.now();
      }
      await sleep(EVENTS_POLL_MS, undefined, { signal: done }).catch(() => undefined);
    }
  } catch (err) {
    deps.logger.error('the event stream stopped', { error: (err as Error).message });
    res.destroy(err as Error);
    return;
  }
  // Stopped while the client does not take what it was sent: ending would wait for it to drain.
  if (res.writableNeedDrain) res.destroy();
  else res.end();
}
