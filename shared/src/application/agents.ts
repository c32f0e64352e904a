/**
 * A group's agents, as their operator runs them: invited (a wallet in custody, its limits, a one-time
 * code), their limits changed, revoked, given a new API key. Every action checks that the wallet owns
 * the agent's group (ownedAgent). The emergency withdrawal is emergency.ts.
 */
import { decideChangeLimits, decideRevoke, decideRotateKey } from '../domain/agent';
import { decideInviteAgent } from '../domain/group';
import { streams } from '../domain/events';
import { limitsToData, type LimitsInput } from '../domain/limits';
import { ServiceError } from '../errors';
import type { Context } from './context';
import { mintApiKey, mintInvitation, newId } from './credentials';
import { rejectAgentHolds } from './approvals';
import { ownedGroup } from './groups';

/** The agent and its group, when `wallet` owns that group. */
export async function ownedAgent(ctx: Context, wallet: string, agentId: string) {
  const agent = await ctx.agents.load(streams.agent(agentId));
  if (agent.state.status === 'unregistered') throw new ServiceError('not_found', 'No such registered agent.');
  await ownedGroup(ctx, wallet, agent.state.groupId);
  return agent;
}

/** Invites one agent: a wallet in custody, its limits, and a one-time code shown once. */
export async function invite(
  ctx: Context,
  wallet: string,
  groupId: string,
  input: { limits?: LimitsInput; label?: string } = {},
) {
  await ownedGroup(ctx, wallet, groupId);
  const agentId = await ctx.wallets.create();
  const invitation = mintInvitation(groupId, agentId);
  const now = ctx.now();
  const expiresAt = now + ctx.settings.invitationTtlMs;
  const events = await ctx.groups.handle(streams.group(groupId), (state) => {
    const e = decideInviteAgent(
      {
        agent_id: agentId,
        invitation_hash: invitation.digest,
        expires_at: expiresAt,
        entry_id: newId(),
        now,
        ...(input.limits && { limits: input.limits }),
        ...(input.label !== undefined && { label: input.label }),
      },
      state,
    );
    return { events: e, result: e };
  });
  const invited = events[0]!.data as { limits: ReturnType<typeof limitsToData> };
  return {
    invitation_code: invitation.code,
    agent_wallet_pda: agentId,
    expires_at: new Date(expiresAt).toISOString(),
    limits: invited.limits,
  };
}

/** New limits for an agent; a revoked agent's are final (revocation is), so `conflict`. */
export async function changeLimits(ctx: Context, wallet: string, agentId: string, limits: LimitsInput) {
  await ownedAgent(ctx, wallet, agentId);
  const state = await ctx.agents.handle(streams.agent(agentId), (s) => {
    if (s.status === 'revoked')
      throw new ServiceError('conflict', 'The agent is revoked, and revocation is final: its limits stay.');
    const events = decideChangeLimits({ limits, now: ctx.now() }, s);
    return { events, result: events };
  });
  return { agent_wallet_pda: agentId, limits: (state[0]!.data as { limits: unknown }).limits };
}

export async function revoke(ctx: Context, wallet: string, agentId: string) {
  const agent = await ownedAgent(ctx, wallet, agentId);
  await ctx.agents.handle(streams.agent(agentId), (s) => ({
    events: decideRevoke({ now: ctx.now() }, s),
    result: undefined,
  }));
  // Revoked, it holds nothing more: its held spends are rejected (approvals.ts).
  await rejectAgentHolds(ctx, agent.state.groupId, agentId, 'agent revoked');
  return { agent_wallet_pda: agentId, is_active: 'revoked' };
}

/** A new key; the old one is dead from this append on. The new key is shown once. */
export async function rotateKey(ctx: Context, wallet: string, agentId: string) {
  await ownedAgent(ctx, wallet, agentId);
  const key = mintApiKey(agentId);
  await ctx.agents.handle(streams.agent(agentId), (s) => ({
    events: decideRotateKey({ api_key_hash: key.digest, now: ctx.now() }, s),
    result: undefined,
  }));
  return { agent_wallet_pda: agentId, api_key: key.apiKey };
}
