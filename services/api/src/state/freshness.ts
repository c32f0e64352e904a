/**
 * Read your writes on the agent views, bounded. The views follow the log a few milliseconds behind
 * (the projector applies it); an answer drawn from them first waits, at most `viewWaitMs`
 * (VIEW_WAIT_MS), until they include the write it must show:
 *   - a read of an agent's state (balance, limits, history, on both contracts): the agent's own last
 *     write, the last event of its stream (an intent accepted, its outcome, a limit change), whichever
 *     API instance or executor appended it: the instance reads it from the log (the stream's cached
 *     state, and what was appended since);
 *   - an operator write (and the airdrop): what it appended (collectAppends); when it appended
 *     nothing (a payment the watcher recorded first, a change already made), the log's head.
 * Past the bound (a projector down, or far behind) it answers with what the views have, and says so in
 * headers (the bodies stay exactly the contract's): `X-Data-Stale: true`, `X-Data-Position` (the log
 * position the views include, opaque; absent when they include nothing yet) and `X-Data-Lag-Ms` (the
 * age of the views: how long ago the oldest event they have not applied yet was recorded, 0 when they
 * are current; absent when the log could not be read in time). A fresh answer says `X-Data-Stale: false`. Spends never wait on the views: they answer from their outcome in the log.
 */
import type { Response } from 'express';
import {
  VIEW_HEADERS,
  collectAppends,
  positionText,
  streams,
  type LastWrite,
  type LogPosition,
} from '@tokenops/shared';
import { PROJECTION, projectedPast } from '@tokenops/projections';
import type { ApiDeps } from '../deps';

type FreshnessDeps = Pick<ApiDeps, 'ctx' | 'views' | 'viewWaitMs'>;

/** The response headers, as the OpenAPI documents (VIEW_HEADERS) and docs/usage.md describe them. */
const FRESHNESS_HEADERS = {
  stale: 'X-Data-Stale',
  position: 'X-Data-Position',
  lag: 'X-Data-Lag-Ms',
} as const satisfies Record<string, keyof typeof VIEW_HEADERS>;

/** Waits (boundedly) until the views include the agent's own last write; says on `res` whether they do. */
export async function showOwnWrites(deps: FreshnessDeps, res: Response, agentId: string): Promise<void> {
  const giveUpAt = Date.now() + deps.viewWaitMs;
  // The log away (or slow past the bound): which write is last is unknown, so the answer may lack it.
  const last = await within(deps.ctx.agents.load(streams.agent(agentId)), deps.viewWaitMs).then(
    (loaded) => (loaded ? { write: loaded.last } : undefined),
    () => undefined,
  );
  await show(deps, res, last, giveUpAt);
}

/**
 * Runs an operator's write; once it is done, waits (boundedly) until the views include what it
 * appended (or, when it appended nothing, everything the log holds now) and says on `res` whether they do.
 */
export async function showWrite<T>(deps: FreshnessDeps, res: Response, write: () => Promise<T>): Promise<T> {
  const { result, last } = await collectAppends(write);
  const giveUpAt = Date.now() + deps.viewWaitMs;
  const position =
    last ?? (await within(deps.ctx.store.headPosition(), deps.viewWaitMs).catch(() => undefined));
  const written = position && position.commit > 0n ? { position, at: Date.now() } : undefined;
  await show(deps, res, position ? { write: written } : undefined, giveUpAt);
  return result;
}

/** `known`: the write to show (none when there is none); undefined when it could not be learnt. */
async function show(
  deps: FreshnessDeps,
  res: Response,
  known: { write: LastWrite | undefined } | undefined,
  giveUpAt: number,
): Promise<void> {
  const shown =
    known !== undefined &&
    (known.write === undefined ||
      (await projectedPast(deps.views, known.write.position, Math.max(0, giveUpAt - Date.now()))));
  res.setHeader(FRESHNESS_HEADERS.stale, String(!shown));
  if (shown) return;
  const at: LogPosition | undefined = await deps.views.checkpoint(PROJECTION);
  if (at) res.setHeader(FRESHNESS_HEADERS.position, positionText(at));
  const age = await viewsAge(deps, at);
  if (age !== undefined) res.setHeader(FRESHNESS_HEADERS.lag, String(age));
}

/**
 * How far behind the views are, in time: the age of the first event of the log they have not applied
 * (they lack everything since), 0 when they have applied all; undefined when the log does not answer
 * within the bound. Not the age of the agent's own missing write: the views may lack much older events
 * of others (a projector down for minutes, an agent that wrote a second ago).
 */
async function viewsAge(deps: FreshnessDeps, at: LogPosition | undefined): Promise<number | undefined> {
  const next = await within(
    deps.ctx.store.readAll({ ...(at && { from: at }), maxCount: 1 }),
    deps.viewWaitMs,
  ).catch(() => undefined);
  if (next === undefined) return undefined;
  const [oldest] = next;
  return oldest ? Math.max(0, Date.now() - Date.parse(oldest.metadata.timestamp)) : 0;
}

/** The promise's value, or undefined once `ms` passed first (the promise is left to settle unseen). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  return Promise.race([
    promise,
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
  ]).finally(() => clearTimeout(timer));
}
