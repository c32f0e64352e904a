/**
 * A group's agents, as their admins run them: invited (a wallet in custody, its limits, a one-time
 * code: a proposal), their limits changed (a proposal when any rises), revoked, given a new API key.
 * Every action checks the wallet's role in the agent's group (ownedAgent). The emergency withdrawal
 * is emergency.ts.
 */
import {
  decideChangeLimits,
  decideIssueKey,
  decideRevoke,
  decideRotateKey,
  type AgentState,
} from '../domain/agent';
import { groupApprovalPolicy } from '../domain/approval';
import { limitsWiden, thresholdWidens } from '../domain/governance';
import { decideInviteAgent, type GroupState } from '../domain/group';
import { streams, type AgentInvited } from '../domain/events';
import { mergeLimits, type LimitsInput } from '../domain/limits';
import { ServiceError } from '../errors';
import type { Context } from './context';
import { mintApiKey, mintInvitation, newId } from './credentials';
import { agentOfGroup, byProposal, type GovernedAction } from './governed';
import { rejectAgentHolds } from './approvals';
import { ownedGroup } from './groups';

/** The agent, when `wallet` is an admin of its group. */
export async function ownedAgent(ctx: Context, wallet: string, agentId: string) {
  const agent = await ctx.agents.load(streams.agent(agentId));
  if (agent.state.status === 'unregistered') throw new ServiceError('not_found', 'No such registered agent.');
  await ownedGroup(ctx, wallet, agent.state.groupId);
  return agent;
}

/** What an invitation takes: the agent's limits over the group's defaults, and a label. */
interface InviteParams {
  limits?: LimitsInput;
  label?: string;
}

/** The invitation of `agentId` (a wallet in custody, or none yet when only checked), decided on the group. */
function decideInvite(
  ctx: Context,
  params: InviteParams,
  state: GroupState,
  agentId: string,
  digest: string,
) {
  const now = ctx.now();
  const expiresAt = now + ctx.settings.invitationTtlMs;
  return decideInviteAgent(
    {
      agent_id: agentId,
      invitation_hash: digest,
      expires_at: expiresAt,
      entry_id: newId(),
      now,
      ...(params.limits && { limits: params.limits }),
      ...(params.label !== undefined && { label: params.label }),
    },
    state,
  );
}

/**
 * Whether a change of the agent's limits widens what it may spend: any of its limits rises, or the
 * approval threshold that applies to it (its own, else the group's policy's) rises or is lifted.
 */
function agentLimitsWiden(group: GroupState, agent: AgentState, change: LimitsInput): boolean {
  const next = mergeLimits(agent.limits, change);
  const groupThreshold = groupApprovalPolicy(group).threshold;
  return (
    limitsWiden(agent.limits, next) ||
    thresholdWidens(
      agent.limits.approval_threshold ?? groupThreshold,
      next.approval_threshold ?? groupThreshold,
    )
  );
}

/** A proposal's invitation: its secret derived from the proposal, so it can be made again once for its proposer. */
const invitationOf = (ctx: Context, groupId: string, agentId: string, proposalId?: string) =>
  mintInvitation(
    groupId,
    agentId,
    ...(proposalId === undefined ? [] : [ctx.vault.derive(`invitation:${proposalId}`)]),
  );

export const AGENT_ACTIONS = {
  /**
   * Invites one agent: a wallet in custody, its limits, and a one-time code (a secret: shown once to
   * the admin whose signature executed it, never recorded).
   */
  'agent.invite': {
    async check(ctx, groupId, params) {
      const { state } = await ctx.groups.load(streams.group(groupId));
      decideInvite(ctx, params as InviteParams, state, `check-${newId()}`, 'check');
    },
    async change(ctx, groupId, params, proposalId) {
      const stream = streams.group(groupId);
      const loaded = await ctx.groups.load(stream);
      decideInvite(ctx, params as InviteParams, loaded.state, `check-${newId()}`, 'check'); // before a wallet is made
      const agentId = await ctx.wallets.create();
      const invitation = invitationOf(ctx, groupId, agentId, proposalId);
      const events = byProposal(
        decideInvite(ctx, params as InviteParams, loaded.state, agentId, invitation.digest),
        proposalId,
      );
      const invited = events[0]!.data as AgentInvited['data'];
      return {
        staged: ctx.groups.stage(stream, loaded, events),
        result: {
          agent_wallet_pda: agentId,
          expires_at: new Date(invited.invitation_expires_at).toISOString(),
          limits: invited.limits,
        },
        secret: { invitation_code: invitation.code },
        widens: true,
      };
    },
    secretOf(ctx, groupId, proposalId, result) {
      const agentId = (result as { agent_wallet_pda: string }).agent_wallet_pda;
      return { invitation_code: invitationOf(ctx, groupId, agentId, proposalId).code };
    },
  },
  /**
   * New limits for an agent (`{agent, limits}`): made at once when none rises (nor the approval
   * threshold that applies to it), a proposal otherwise. A revoked agent's are final: `conflict`.
   */
  'agent.limits': {
    async change(ctx, groupId, params, proposalId) {
      const [agent, { state: group }] = await Promise.all([
        agentOfGroup(ctx, groupId, String(params.agent)),
        ctx.groups.load(streams.group(groupId)),
      ]);
      if (agent.state.status === 'revoked')
        throw new ServiceError('conflict', 'The agent is revoked, and revocation is final: its limits stay.');
      const change = params.limits as LimitsInput;
      const events = byProposal(
        decideChangeLimits({ limits: change, now: ctx.now() }, agent.state),
        proposalId,
      );
      return {
        staged: ctx.agents.stage(streams.agent(agent.state.agentId), agent, events),
        result: {
          agent_wallet_pda: agent.state.agentId,
          limits: (events[0]!.data as { limits: unknown }).limits,
        },
        widens: agentLimitsWiden(group, agent.state, change),
      };
    },
  },
  /**
   * A new API key for the agent (`{agent}`), issued once its old one was killed: a secret, shown once
   * to the admin whose signature executed it (or, after a delay, to its proposer).
   */
  'agent.issue_key': {
    async change(ctx, groupId, params, proposalId) {
      const loaded = await agentOfGroup(ctx, groupId, String(params.agent));
      const agentId = loaded.state.agentId;
      const key = keyOf(ctx, agentId, proposalId);
      const events = byProposal(
        decideIssueKey({ api_key_hash: key.digest, now: ctx.now() }, loaded.state),
        proposalId,
      );
      return {
        staged: ctx.agents.stage(streams.agent(agentId), loaded, events),
        result: { agent_wallet_pda: agentId },
        secret: { api_key: key.apiKey },
        widens: true,
      };
    },
    secretOf(ctx, _groupId, proposalId, result) {
      const agentId = (result as { agent_wallet_pda: string }).agent_wallet_pda;
      return { api_key: keyOf(ctx, agentId, proposalId).apiKey };
    },
  },
} satisfies Record<string, GovernedAction>;

/** A proposal's API key: derived from the proposal, so it can be made again once for its proposer. */
const keyOf = (ctx: Context, agentId: string, proposalId?: string) =>
  mintApiKey(agentId, ...(proposalId === undefined ? [] : [ctx.vault.derive(`api-key:${proposalId}`, 32)]));

/** The group of a registered agent (`not_found`: no such agent). */
export async function groupOfAgent(ctx: Context, agentId: string): Promise<string> {
  const { state } = await ctx.agents.load(streams.agent(agentId));
  if (state.status === 'unregistered') throw new ServiceError('not_found', 'No such registered agent.');
  return state.groupId;
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

/**
 * A rotation's first half, at once: the agent's key dies from this append on (replaced by a key
 * nobody holds). Its new key widens who may spend, so it is issued by a proposal (`agent.issue_key`).
 */
export async function killKey(ctx: Context, wallet: string, agentId: string) {
  await ownedAgent(ctx, wallet, agentId);
  const nobodys = mintApiKey(agentId); // never shown, never kept: the old key is simply refused
  await ctx.agents.handle(streams.agent(agentId), (s) => ({
    events: decideRotateKey({ api_key_hash: nobodys.digest, now: ctx.now() }, s),
    result: undefined,
  }));
}
