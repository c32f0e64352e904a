/**
 * Agent authentication: `Authorization: Bearer <api key>`. The key is checked for our prefix and
 * checksum first (a typo costs no lookup), then its digest against the agent's current one in the
 * agent views, in constant time; then the agent's rate limit is counted. A key the views do not
 * accept costs little more: the client's address must be within its allowance of failures, then the
 * views are given a moment to apply the log as it is now (a key registered or rotated a moment ago)
 * and asked again; the agent's stream is read only when the views are stuck (projector down). Every
 * operation that moves money checks the key again on the write model, so a rotated or revoked key
 * moves nothing. A spend refused for a key the agent held (revoked, or rotated out) is recorded
 * (recordingRefusedKeys).
 */
import type { Request } from 'express';
import {
  ServiceError,
  acceptsKey,
  limitsToData,
  readApiKey,
  recordRefusedKey,
  sameDigest,
  streams,
  type Action,
  type Caller,
  type Context,
  type ReadModelStore,
} from '@tokenops/shared';
import { type Logger } from '@tokenops/shared/process';
import { agentView, projectedPast, type AgentView } from '@tokenops/projections';
import type { ClientRateLimit, RateLimits } from './rate-limit';

/** How long a key the views do not know waits for them to apply the log as it is now. */
const CATCH_UP_MS = 500;

interface AuthDeps {
  views: ReadModelStore;
  ctx: Context;
  clientLimit: ClientRateLimit;
}

export function bearer(req: Request): string | undefined {
  const header = req.header('authorization');
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1];
}

// Decoding and hashing a key costs more than the rest of a read; the answer for a key never changes.
const parsedKeys = new Map<string, ReturnType<typeof readApiKey>>();
function parseKey(key: string): ReturnType<typeof readApiKey> {
  if (parsedKeys.has(key)) return parsedKeys.get(key);
  const parsed = readApiKey(key);
  if (parsed) {
    if (parsedKeys.size >= 10_000) parsedKeys.clear();
    parsedKeys.set(key, parsed);
  }
  return parsed;
}

/**
 * The agent of the request's key; the request counts against the agent's rate limit unless `count` is
 * false (the MCP endpoint: a tool call counts where it arrives, as the API call it makes).
 */
export async function authenticateAgent(
  req: Request,
  deps: AuthDeps & { limits: RateLimits },
  { count = true }: { count?: boolean } = {},
): Promise<{ caller: Caller; view: AgentView }> {
  const found = await identify(req, deps);
  if (count) await deps.limits.agent.consume(found.caller.agentId, req.res!);
  return found;
}

/**
 * Runs a spend route; a refusal of its key (401, from authentication or from the key's check on the
 * write model) for a key in our format is offered to the agent's stream, which records it when the key
 * is one the agent held (application/spends/refused.ts). An address over its allowance of failures is
 * refused before (429), so this costs at most that many reads a minute per address. Failing to record
 * does not change the answer: it is still 401. `body` is what the spend asked (the request's body; an
 * MCP tool call's arguments).
 */
export async function recordingRefusedKeys<T>(
  req: Request,
  deps: { ctx: Context; logger: Logger },
  action: Action,
  handle: () => Promise<T>,
  body: unknown = req.json,
): Promise<T> {
  try {
    return await handle();
  } catch (err) {
    const key = bearer(req);
    const parsed = key ? parseKey(key) : undefined;
    if (err instanceof ServiceError && err.code === 'unauthorized' && parsed) {
      const caller = { agentId: parsed.agentId, keyDigest: parsed.digest };
      await recordRefusedKey(deps.ctx, caller, action, body).catch((failure: unknown) =>
        deps.logger.warn('a refused key was not recorded', { request_id: req.id, error: String(failure) }),
      );
    }
    throw err;
  }
}

async function identify(req: Request, deps: AuthDeps): Promise<{ caller: Caller; view: AgentView }> {
  const key = bearer(req);
  const parsed = key ? parseKey(key) : undefined;
  if (!parsed) throw new ServiceError('unauthorized');
  const caller = { agentId: parsed.agentId, keyDigest: parsed.digest };
  const accepts = (view: AgentView | undefined): view is AgentView =>
    view !== undefined && view.status === 'active' && sameDigest(view.api_key_hash, parsed.digest);
  const view = await agentView(deps.views, parsed.agentId);
  if (accepts(view)) return { caller, view };
  // Not a key the views accept. An address over its allowance of failures goes no further.
  await deps.clientLimit.check(req);
  // The views may not know yet (an agent registered, or a key rotated, a moment ago).
  if (await projectedPast(deps.views, await deps.ctx.store.headPosition(), CATCH_UP_MS)) {
    const current = await agentView(deps.views, parsed.agentId);
    if (accepts(current)) return { caller, view: current };
    throw new ServiceError('unauthorized');
  }
  // The views are stuck: the log decides.
  const { state } = await deps.ctx.agents.load(streams.agent(parsed.agentId));
  if (!acceptsKey(state, parsed.digest)) throw new ServiceError('unauthorized');
  return {
    caller,
    view: {
      agent_id: state.agentId,
      group_id: state.groupId,
      status: 'active',
      api_key_hash: state.apiKeyHash,
      limits: limitsToData(state.limits),
    },
  };
}
