/** Registration: an invitation code becomes an API key, once. */
import { decideRegister } from '../domain/agent';
import { streams } from '../domain/events';
import type { LimitsData } from '../domain/limits';
import { ServiceError } from '../errors';
import { WrongExpectedRevision } from '../event-store/port';
import type { Context } from './context';
import { mintApiKey, readInvitation } from './credentials';

export interface Registration {
  agent_wallet_pda: string;
  api_key: string;
  group_id: string;
  /** The limits the agent starts with (the invitation's). */
  limits: LimitsData;
}

/**
 * Redeems an invitation. The agent's stream must not exist yet: the append expects no stream, so of
 * any number of concurrent registrations with one code exactly one gets a key; the others are
 * `invalid_invitation_code`, as is every other failure (a caller learns nothing about which part).
 */
export async function register(ctx: Context, code: string): Promise<Registration> {
  const { groupId, agentId, digest } = readInvitation(code);
  const group = await ctx.groups.load(streams.group(groupId));
  const agentStream = streams.agent(agentId);
  const agent = await ctx.agents.load(agentStream);
  const key = mintApiKey(agentId);
  const events = decideRegister(
    { agent_id: agentId, invitation_hash: digest, api_key_hash: key.digest, now: ctx.now() },
    group.state,
    agent.state,
  );
  try {
    await ctx.agents.append(agentStream, agent, events);
  } catch (err) {
    if (err instanceof WrongExpectedRevision) throw new ServiceError('invalid_invitation_code');
    throw err;
  }
  const registered = events.find((e) => e.type === 'agent.registered');
  const limits = registered?.type === 'agent.registered' ? registered.data.limits : undefined;
  if (!limits) throw new ServiceError('invalid_invitation_code');
  return { agent_wallet_pda: agentId, api_key: key.apiKey, group_id: groupId, limits };
}
