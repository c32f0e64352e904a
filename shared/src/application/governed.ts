/**
 * A change the governance governs (docs/governance.md), as one row of the table of governed actions
 * (proposals.ts `GOVERNED_ACTIONS`): how it is made from the parameters a route took, whether it widens
 * what agents may spend (then it is a proposal the admins sign) or narrows it (then any one admin
 * makes it at once), and which of its answer's fields are secrets (shown once, never in the log).
 *
 * The same `change` checks a change when it is proposed (nothing appended) and makes it when it
 * executes, so a proposal is only ever made of a change that applied then. A change made by a
 * proposal carries its id in every event (`proposal_id`).
 */
import type { AgentState } from '../domain/agent';
import { evolveGroup, type GroupState } from '../domain/group';
import { streams, type AgentEvent, type GroupEvent } from '../domain/events';
import { ServiceError } from '../errors';
import type { Context } from './context';
import type { Staged } from './repository';

/**
 * A change ready to be appended, what it answers, the secrets it made (never recorded), and whether it
 * widens what agents may spend or who may act, judged on the very state it was decided on (so a
 * change made at once is appended at that state's revision, and nothing slips in between).
 */
export interface Change {
  staged: Staged;
  result: unknown;
  secret?: Record<string, unknown>;
  widens: boolean;
  /**
   * What the change does once it is recorded, beyond its events (an emergency withdrawal's drain on
   * chain): its answer is the change's answer to whoever made or executed it (not recorded).
   */
  afterwards?: () => Promise<unknown>;
}

export type Params = Record<string, unknown>;

export interface GovernedAction {
  /**
   * Makes the change on the group `groupId` from `params`: its events staged on the state as it
   * stands, each carrying `proposalId` when a proposal makes it. Throws a ServiceError when it does
   * not apply.
   */
  change(ctx: Context, groupId: string, params: Params, proposalId?: string): Promise<Change>;
  /**
   * The secrets the change made when `proposalId` executed it with `result` (the recorded answer),
   * made again: for the proposer of a proposal the scheduler executed, once. Absent: it makes none.
   */
  secretOf?(ctx: Context, groupId: string, proposalId: string, result: unknown): Record<string, unknown>;
  /** Checks that the change applies, with nothing made, when `change` itself makes something (a wallet). */
  check?(ctx: Context, groupId: string, params: Params): Promise<void>;
}

/** The events, each carrying the proposal that makes them (none at once). */
export const byProposal = <E extends { data: object }>(events: readonly E[], proposalId?: string): E[] =>
  proposalId === undefined
    ? [...events]
    : events.map((e) => ({ ...e, data: { ...e.data, proposal_id: proposalId } }));

/** Nothing would change: no change to make or to propose. */
export const inForce = () => new ServiceError('conflict', 'That is in force already: nothing would change.');

/**
 * A change of the group's own stream: its decider's events on the group as it stands, and what the
 * change answers from those events and the group after them.
 */
export function onGroup(
  decide: (params: Params, state: GroupState, now: number) => GroupEvent[],
  answer: (groupId: string, after: GroupState, events: GroupEvent[], params: Params) => unknown,
  more: {
    /** Whether the change widens, on the group it is decided on (absent: it always does). */
    widens?: (params: Params, before: GroupState) => boolean;
    /** Asking again for what is in force answers as the change would (made at once, nothing recorded). */
    idempotent?: true;
  } = {},
): GovernedAction {
  return {
    async change(ctx, groupId, params, proposalId) {
      const stream = streams.group(groupId);
      const loaded = await ctx.groups.load(stream);
      const events = byProposal(decide(params, loaded.state, ctx.now()), proposalId);
      if (events.length === 0 && !more.idempotent) throw inForce();
      return {
        staged: ctx.groups.stage(stream, loaded, events),
        result: answer(groupId, events.reduce(evolveGroup, loaded.state), events, params),
        widens: more.widens?.(params, loaded.state) ?? true,
      };
    },
  };
}

/** The agent `agentId` of the group, registered (else `not_found`) and not revoked (else `conflict`). */
export async function agentOfGroup(ctx: Context, groupId: string, agentId: string) {
  const loaded = await ctx.agents.load(streams.agent(agentId));
  if (loaded.state.status === 'unregistered' || loaded.state.groupId !== groupId)
    throw new ServiceError('not_found', 'No such registered agent in the group.');
  return loaded;
}

/** A change of an agent's stream (`params.agent`) that always widens: its decider's events, and what it answers. */
export function onAgent(
  decide: (params: Params, state: AgentState, now: number) => AgentEvent[],
  answer: (agentId: string, events: AgentEvent[]) => unknown,
): GovernedAction {
  return {
    async change(ctx, groupId, params, proposalId) {
      const agentId = String(params.agent);
      const loaded = await agentOfGroup(ctx, groupId, agentId);
      const events = byProposal(decide(params, loaded.state, ctx.now()), proposalId);
      if (events.length === 0) throw inForce();
      return {
        staged: ctx.agents.stage(streams.agent(agentId), loaded, events),
        result: answer(agentId, events),
        widens: true,
      };
    },
  };
}
