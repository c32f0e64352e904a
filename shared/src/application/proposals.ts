/**
 * Proposals (docs/governance.md): a change that widens what agents may spend is made only once a
 * quorum of the group's admins has signed it. The route that would make the change checks it applies
 * and records the proposal instead (202); each admin signs its message with its wallet; once the
 * quorum in force is reached (and the governance delay passed) the service executes it as the very
 * events the change makes, each carrying the proposal id. The rules are domain/proposal.ts.
 *
 * The governed actions are a table (GOVERNED_ACTIONS): each says how its change is made. The same
 * function checks a change when it is proposed (nothing appended) and makes it when it executes, so a
 * proposal is only ever made of a change that applied then; one that no longer applies when it is
 * due ends `failed`, with the reason.
 *
 * Executed exactly once: the change's events and `governance.executed` are appended together, each at
 * the revision it was decided on (appendTogether), so two admins signing at once, or a cancel racing
 * the execution, decide it once. A store that cannot append to two streams at once (EventStoreDB)
 * records the execution first (the proposals stream is the arbiter), then the change.
 */
import { randomUUID } from 'node:crypto';
import { decideUnfreezeAgent } from '../domain/agent';
import {
  authorizeMember,
  decideAddMember,
  decideRemoveMember,
  decideSetGovernance,
  decideUnfreezeGroup,
  type GovernanceState,
} from '../domain/governance';
import { evolveGroup, type GroupState } from '../domain/group';
import {
  decideCancel,
  decideExecuted,
  decideFailed,
  decidePropose,
  decideSign,
  isDue,
  parseProposalId,
  proposalIdOf,
  proposalView,
  type ProposalStatus,
  type ProposalsState,
} from '../domain/proposal';
import { streams, type GroupEvent } from '../domain/events';
import type { ProposalAction } from '../contract/operator/governance';
import { ServiceError } from '../errors';
import { WrongExpectedRevision } from '../event-store/port';
import type { Context } from './context';
import { governanceView, membersView } from './members';
import { appendTogether, withPatience, type Loaded, type Staged } from './repository';

/** A change ready to be appended, and what it answers. */
interface Change {
  staged: Staged;
  result: unknown;
}

/**
 * One kind of widening change: how it is made on the group `groupId` (the proposal's), from the
 * parameters the proposal recorded. Throws a ServiceError when it does not apply.
 */
interface GovernedAction {
  change(ctx: Context, groupId: string, params: Record<string, unknown>, proposalId: string): Promise<Change>;
}

/**
 * A change of the group's own stream: its decider's events on the group as it stands, and what the
 * change answers, from the group after them. A change that records nothing (it is in force already)
 * is no change to propose: `conflict`.
 */
function onGroup(
  decide: (
    params: Record<string, unknown>,
    state: GroupState,
    proposalId: string,
    now: number,
  ) => GroupEvent[],
  answer: (groupId: string, after: GroupState) => unknown,
): GovernedAction {
  return {
    async change(ctx, groupId, params, proposalId) {
      const stream = streams.group(groupId);
      const loaded = await ctx.groups.load(stream);
      const events = decide(params, loaded.state, proposalId, ctx.now());
      if (events.length === 0)
        throw new ServiceError('conflict', 'That is in force already: nothing would change.');
      return {
        staged: ctx.groups.stage(stream, loaded, events),
        result: answer(groupId, events.reduce(evolveGroup, loaded.state)),
      };
    },
  };
}

export const GOVERNED_ACTIONS = {
  /** Lifts the group's freeze. */
  'group.unfreeze': onGroup(
    (_params, state, proposalId, now) =>
      decideUnfreezeGroup({ proposal_id: proposalId, now }, state.governance),
    (groupId) => ({ group_config_pda: groupId, frozen: null }),
  ),
  /** Adds a member, or gives a member another role: `{wallet, role}`. */
  'member.add': onGroup(
    (params, state, proposalId, now) =>
      decideAddMember(
        { wallet: String(params.wallet), role: params.role, proposal_id: proposalId, now },
        state.governance,
      ),
    (groupId, after) => membersView(groupId, after.governance),
  ),
  /** Removes a member: `{wallet}`. */
  'member.remove': onGroup(
    (params, state, proposalId, now) =>
      decideRemoveMember({ wallet: String(params.wallet), proposal_id: proposalId, now }, state.governance),
    (groupId, after) => membersView(groupId, after.governance),
  ),
  /** Puts a governance policy in force: the fields given, over the policy in force. */
  'governance.set': onGroup(
    (params, state, proposalId, now) =>
      decideSetGovernance({ ...params, proposal_id: proposalId, now }, state.governance),
    (groupId, after) => governanceView(groupId, after.governance),
  ),
  /** Lifts an agent's freeze. */
  'agent.unfreeze': {
    async change(ctx, groupId, params, proposalId) {
      const agentId = String(params.agent);
      const stream = streams.agent(agentId);
      const loaded = await ctx.agents.load(stream);
      if (loaded.state.status === 'unregistered' || loaded.state.groupId !== groupId)
        throw new ServiceError('not_found', 'No such registered agent in the group.');
      if (loaded.state.status === 'revoked') throw new ServiceError('conflict', 'The agent is revoked.');
      const events = decideUnfreezeAgent({ proposal_id: proposalId, now: ctx.now() }, loaded.state);
      return {
        staged: ctx.agents.stage(stream, loaded, events),
        result: { agent_wallet_pda: agentId, frozen: null },
      };
    },
  },
} as const satisfies Record<ProposalAction, GovernedAction>;

export type GovernedActionName = ProposalAction;

/** The change a proposal makes, checked now; its parameters are what the proposal records. */
export async function propose(
  ctx: Context,
  wallet: string,
  groupId: string,
  action: GovernedActionName,
  params: Record<string, unknown>,
) {
  const group = await groupOf(ctx, groupId);
  authorizeMember(group.governance, wallet, 'admin');
  const proposalId = proposalIdOf(groupId, randomUUID());
  await GOVERNED_ACTIONS[action].change(ctx, groupId, params, proposalId); // applies now, or throws
  const stream = streams.proposals(groupId);
  const state = await ctx.proposals
    .handle(stream, (s) => {
      const events = decidePropose(
        {
          proposal_id: proposalId,
          action,
          params,
          proposed_by: wallet,
          governance: group.governance,
          now: ctx.now(),
        },
        s,
      );
      return { events, result: undefined };
    })
    .then(() => ctx.proposals.peek(stream).state);
  return proposalView(state.proposals.get(proposalId)!, group.governance, ctx.now());
}

/**
 * An admin signs. Once the quorum in force is reached and no delay is asked, the proposal executes in
 * this request: the answer is the executed proposal with its result.
 */
export async function signProposal(ctx: Context, wallet: string, proposalId: string, signature: string) {
  const { groupId, stream } = located(proposalId);
  const group = await groupOf(ctx, groupId);
  await ctx.proposals.handle(stream, (state) => ({
    events: decideSign(
      { proposal_id: proposalId, wallet, signature, governance: group.governance, now: ctx.now() },
      state,
    ),
    result: undefined,
  }));
  await executeIfDue(ctx, proposalId);
  return stillOpen(await answer(ctx, proposalId, wallet));
}

/** Any admin cancels a pending or ready proposal. */
export async function cancelProposal(ctx: Context, wallet: string, proposalId: string, reason?: string) {
  const { groupId, stream } = located(proposalId);
  const group = await groupOf(ctx, groupId);
  await ctx.proposals.handle(stream, (state) => ({
    events: decideCancel(
      {
        proposal_id: proposalId,
        wallet,
        ...(reason !== undefined && { reason }),
        governance: group.governance,
        now: ctx.now(),
      },
      state,
    ),
    result: undefined,
  }));
  return stillOpen(await answer(ctx, proposalId, wallet));
}

/** A signature or a cancel on a proposal past its time recorded its expiry: the caller is told so. */
function stillOpen<V extends { status: ProposalStatus }>(view: V): V {
  if (view.status === 'expired')
    throw new ServiceError('conflict', 'The proposal expired before it executed; nothing changed.');
  return view;
}

/** One proposal, for any member of its group. */
export async function getProposal(ctx: Context, wallet: string, proposalId: string) {
  return answer(ctx, proposalId, wallet);
}

/** The group's proposals, newest first, by status when asked; for any member. */
export async function listProposals(ctx: Context, wallet: string, groupId: string, status?: ProposalStatus) {
  const group = await groupOf(ctx, groupId);
  authorizeMember(group.governance, wallet, 'read');
  const { state } = await ctx.proposals.load(streams.proposals(groupId));
  const now = ctx.now();
  const proposals = [...state.proposals.values()]
    .map((record) => proposalView(record, group.governance, now))
    .filter((p) => status === undefined || p.status === status)
    .reverse();
  return { proposals };
}

/**
 * Executes the proposal if it is due: the change and its record together, once. A change that no
 * longer applies ends the proposal `failed`, with the reason. Nothing when it is not due.
 */
export async function executeIfDue(ctx: Context, proposalId: string): Promise<void> {
  const { groupId, stream } = located(proposalId);
  await ctx.proposals.exclusive(stream, () =>
    withPatience(async () => {
      const [proposals, group] = await Promise.all([ctx.proposals.load(stream), groupOf(ctx, groupId)]);
      const record = proposals.state.proposals.get(proposalId);
      const now = ctx.now();
      if (!record || !isDue(record, group.governance, now)) return;
      let change: Change;
      try {
        const action = GOVERNED_ACTIONS[record.proposed.action as GovernedActionName];
        if (!action)
          throw new ServiceError('conflict', `${record.proposed.action} is not a governed action.`);
        change = await action.change(ctx, groupId, record.proposed.params, proposalId);
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status >= 500) throw err;
        await ctx.proposals.append(
          stream,
          proposals,
          decideFailed({ proposal_id: proposalId, reason: err.message, now }, proposals.state),
        );
        return;
      }
      const executed = decideExecuted(
        { proposal_id: proposalId, result: change.result, governance: group.governance, now },
        proposals.state,
      );
      await appendExecution(ctx, stream, proposals, executed, change);
    }),
  );
}

async function appendExecution(
  ctx: Context,
  stream: string,
  proposals: Loaded<ProposalsState>,
  executed: ReturnType<typeof decideExecuted>,
  change: Change,
): Promise<void> {
  const record = ctx.proposals.stage(stream, proposals, executed);
  if (ctx.store.appendAtomically) return appendTogether(ctx.store, [change.staged, record]);
  // One stream at a time: the execution's record first (the arbiter), then the change.
  await ctx.proposals.append(stream, proposals, executed);
  const { append } = change.staged;
  try {
    const result = await ctx.store.append(append.stream, append.events, append.expected);
    change.staged.landed(result);
  } catch (err) {
    if (err instanceof WrongExpectedRevision) change.staged.failed(err);
    throw err;
  }
}

async function answer(ctx: Context, proposalId: string, wallet: string) {
  const { groupId, stream } = located(proposalId);
  const group = await groupOf(ctx, groupId);
  authorizeMember(group.governance, wallet, 'read');
  const record = (await ctx.proposals.load(stream)).state.proposals.get(proposalId);
  if (!record) throw new ServiceError('not_found', 'No such proposal.');
  return proposalView(record, group.governance, ctx.now());
}

function located(proposalId: string) {
  const parsed = parseProposalId(proposalId);
  if (!parsed) throw new ServiceError('not_found', 'No such proposal.');
  return { groupId: parsed.groupId, stream: streams.proposals(parsed.groupId) };
}

async function groupOf(ctx: Context, groupId: string): Promise<GroupState & { governance: GovernanceState }> {
  const { state } = await ctx.groups.load(streams.group(groupId));
  if (!state.exists) throw new ServiceError('not_found', 'No such group.');
  return state;
}
