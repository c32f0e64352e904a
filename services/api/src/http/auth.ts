/**
 * Agent authentication: `Authorization: Bearer <api key>`. The key is checked for our prefix and
 * checksum first (a typo costs no lookup), then its digest against the agent's current one, in
 * constant time; then the agent's rate limit is counted. Reads trust the agent views (milliseconds behind the log); every operation that
 * moves money checks the key again on the write model, so a rotated or revoked key moves nothing.
 */
import type { Request } from 'express';
import {
  ServiceError,
  acceptsKey,
  limitsToData,
  readApiKey,
  sameDigest,
  streams,
  type Caller,
  type Context,
  type ReadModelStore,
} from '@tokenops/shared';
import { agentView, type AgentView } from '@tokenops/projections';
import type { AgentRateLimit } from './rate-limit';

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

export async function authenticateAgent(
  req: Request,
  deps: { views: ReadModelStore; ctx: Context; rateLimit: AgentRateLimit },
): Promise<{ caller: Caller; view: AgentView }> {
  const found = await identify(req, deps);
  await deps.rateLimit.consume(found.caller.agentId, req.res!);
  return found;
}

async function identify(
  req: Request,
  deps: { views: ReadModelStore; ctx: Context },
): Promise<{ caller: Caller; view: AgentView }> {
  const key = bearer(req);
  const parsed = key ? parseKey(key) : undefined;
  if (!parsed) throw new ServiceError('unauthorized');
  const caller = { agentId: parsed.agentId, keyDigest: parsed.digest };
  const view = await agentView(deps.views, parsed.agentId);
  if (view && view.status === 'active' && sameDigest(view.api_key_hash, parsed.digest))
    return { caller, view };
  // The views may not know yet (an agent registered, or a key rotated, a moment ago): ask the log.
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
