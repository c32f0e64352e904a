/**
 * The kill switch (docs/governance.md): any one admin freezes an agent or a whole group, at once.
 *
 *   1. The freeze is appended: `agent.frozen` to the agent's stream, or `group.frozen` to the group's.
 *      Every spend decided from then on is refused (`agent_frozen`, `group_frozen`): an agent's freeze
 *      is in the very stream its decisions append to, so no decision slips past it; a group's is read
 *      by every decision, and by the executor before it signs, so an intent accepted on a read made
 *      just before the freeze landed is failed there instead of reaching the chain.
 *   2. Stop: every intent accepted and not yet submitted fails (its budget reservation released); an
 *      executor records a submission only on an intent still reserved, so none of them reaches the
 *      chain afterwards. An intent already submitted is left to its executor.
 *   3. Held spends are rejected, the approvals' record saying which switch did it.
 *
 * Reads, webhooks and the log go on. Safe to repeat: freezing again fails whatever is left open.
 * Lifting a freeze widens what agents may spend: it is a proposal (proposal.ts), not this.
 */
import {
  decideFreezeAgent,
  decideUnfreezeAgent,
  failUnsubmitted,
  FROZEN,
  type AgentState,
} from '../domain/agent';
import { authorizeMember, decideFreezeGroup, decideUnfreezeGroup } from '../domain/governance';
import { decodeEvent, streams, type AgentEvent, type IntentData } from '../domain/events';
import type { GroupState } from '../domain/group';
import { ServiceError } from '../errors';
import type { Context } from './context';
import { rejectAgentHolds } from './approvals';
import { onAgent, onGroup } from './governed';
import { settleReservations } from './settle';

/** Lifting a freeze widens what agents may spend: each is a proposal (proposals.ts). */
export const FREEZE_ACTIONS = {
  /** Lifts the group's freeze. */
  'group.unfreeze': onGroup(
    (_params, state, now) => decideUnfreezeGroup({ now }, state.governance),
    (groupId) => ({ group_config_pda: groupId, frozen: null }),
  ),
  /** Lifts an agent's freeze: `{agent}`. */
  'agent.unfreeze': onAgent(
    (_params, state, now) => {
      if (state.status === 'revoked') throw new ServiceError('conflict', 'The agent is revoked.');
      return decideUnfreezeAgent({ now }, state);
    },
    (agentId) => ({ agent_wallet_pda: agentId, frozen: null }),
  ),
};

/** What an admin gives: why (shown to the agent in every refusal and in the log). */
export interface FreezeInput {
  reason?: string;
}

export async function freezeAgent(ctx: Context, wallet: string, agentId: string, input: FreezeInput = {}) {
  const { state: agent } = await ctx.agents.load(streams.agent(agentId));
  if (agent.status === 'unregistered') throw new ServiceError('not_found', 'No such registered agent.');
  const { state: group } = await ctx.groups.load(streams.group(agent.groupId));
  authorizeMember(group.governance, wallet, 'admin');
  if (agent.status === 'revoked')
    throw new ServiceError(
      'conflict',
      'The agent is revoked: it spends nothing, there is nothing to freeze.',
    );
  const now = ctx.now();
  const { agent: frozen, failed } = await stopAgent(
    ctx,
    agentId,
    (state) => decideFreezeAgent({ by: wallet, ...input, now }, state),
    'agent frozen',
  );
  return { ...frozenAgentView(frozen), failed_intents: failed };
}

export async function freezeGroup(ctx: Context, wallet: string, groupId: string, input: FreezeInput = {}) {
  const now = ctx.now();
  const group = await ctx.groups.handle(streams.group(groupId), (state) => {
    authorizeMember(state.governance, wallet, 'admin');
    const events = decideFreezeGroup({ by: wallet, ...input, now }, state.governance);
    return { events, result: state };
  });
  const freeze = { by: wallet, ...input, at: now };
  const reason = group.governance.frozen?.reason ?? input.reason;
  const failure = FROZEN.group_frozen(reason);
  let failed = 0;
  for (const agentId of agentsOf(group))
    failed += (
      await stopAgent(
        ctx,
        agentId,
        (state) => (state.status === 'active' ? failUnsubmitted(state, failure, now) : []),
        'group frozen',
      )
    ).failed;
  return {
    group_config_pda: groupId,
    frozen: freezeView(group.governance.frozen ?? freeze),
    failed_intents: failed,
  };
}

/** Every agent the group invited (registered or not: an unregistered one has nothing to stop). */
const agentsOf = (group: GroupState): string[] => [...group.invitations.keys()];

/**
 * Appends what `decide` stops on the agent's stream, then releases the budgets of the intents it
 * failed and rejects the agent's held spends. The agent as it stands afterwards, and how many of its
 * intents failed.
 */
export async function stopAgent(
  ctx: Context,
  agentId: string,
  decide: (state: AgentState) => AgentEvent[],
  holdsRejectedFor: string,
): Promise<{ agent: AgentState; failed: number }> {
  const stream = streams.agent(agentId);
  const { events, state } = await ctx.agents.handle(stream, (s) => {
    const events = s.status === 'unregistered' ? [] : decide(s);
    return { events, result: { events, state: s } };
  });
  if (state.status === 'unregistered') return { agent: state, failed: 0 };
  const failed = await afterStop(ctx, state.groupId, agentId, events, holdsRejectedFor);
  return { agent: (await ctx.agents.load(stream)).state, failed };
}

/**
 * What follows a stop appended on the agent's stream (`events`, by an admin's freeze or by the guard's
 * in the spend decision): the reservations of the intents it failed released, the agent's held spends
 * rejected. How many intents it failed.
 */
export async function afterStop(
  ctx: Context,
  groupId: string,
  agentId: string,
  events: readonly AgentEvent[],
  holdsRejectedFor: string,
): Promise<number> {
  const failedIds = new Set(events.flatMap((e) => (e.type === 'intent.failed' ? [e.data.intent_id] : [])));
  if (failedIds.size > 0) {
    for (const recorded of await ctx.store.readStream(streams.agent(agentId))) {
      const e = decodeEvent(recorded);
      if (e?.type === 'intent.accepted' && failedIds.has(e.data.intent_id))
        await settleReservations(ctx, e.data as IntentData, false);
    }
  }
  await rejectAgentHolds(ctx, groupId, agentId, holdsRejectedFor);
  return failedIds.size;
}

const freezeView = (f: { by: string; reason?: string; at: number }) => ({
  by: f.by,
  reason: f.reason ?? null,
  at: new Date(f.at).toISOString(),
});

/** An agent's freeze as the operator surface shows it: null when it is not frozen. */
export const agentFreeze = (agent: AgentState) => (agent.frozen ? freezeView(agent.frozen) : null);
/** A group's freeze as the operator surface shows it: null when it is not frozen. */
export const groupFreeze = (group: GroupState) =>
  group.governance.frozen ? freezeView(group.governance.frozen) : null;

const frozenAgentView = (agent: AgentState) => ({
  agent_wallet_pda: agent.agentId,
  group_config_pda: agent.groupId,
  frozen: agentFreeze(agent),
});
