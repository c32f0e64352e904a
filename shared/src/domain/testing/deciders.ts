/**
 * The deciders of the domain in the shape `DeciderSpecification.for` takes: a command and the state its
 * stream's events fold into, in; new events, out.
 */
import {
  decideChangeLimits,
  decideKeyRefused,
  evolveAgent,
  initialAgentState,
  type AgentState,
} from '../agent';
import { decideSettleBudget, evolveBudget, initialBudgetState, type BudgetState } from '../budget';
import type { AgentEvent, BudgetEvent, GroupEvent } from '../events';
import {
  decideAddEntry,
  evolveGroup,
  initialGroupState,
  type AddEntry,
  type AllowEntry,
  type GroupState,
} from '../group';
import { decideIntent, decideSettleIntent, type IntentCommand } from '../intent';
import type { Decider } from './specification';
import { group } from './fixtures';

/** The spend decision of an agent of `inGroup` (the fixture group by default): what its stream records. */
export const spend = (inGroup: GroupState = group()): Decider<IntentCommand, AgentState, AgentEvent> => ({
  decide: (cmd, agent) => decideIntent(cmd, { group: inGroup, agent }).agentEvents,
  evolve: evolveAgent,
  initialState: initialAgentState,
});

/** An accepted intent's outcome, on the agent's stream. */
export const settleIntent = {
  decide: decideSettleIntent,
  evolve: evolveAgent,
  initialState: initialAgentState,
};

/** An operator's change of an agent's limits. */
export const changeLimits = {
  decide: decideChangeLimits,
  evolve: evolveAgent,
  initialState: initialAgentState,
};

/** A spend refused for a key the agent may no longer use, on the agent's stream. */
export const keyRefused = {
  decide: decideKeyRefused,
  evolve: evolveAgent,
  initialState: initialAgentState,
};

/** A reservation's settlement on the budget stream of the type-1 `entry`. */
export const settleBudget = (
  entry: AllowEntry,
): Decider<Parameters<typeof decideSettleBudget>[0], BudgetState, BudgetEvent> => ({
  decide: (cmd, state) => decideSettleBudget(cmd, entry, state),
  evolve: evolveBudget,
  initialState: initialBudgetState,
});

/** An operator's new allow-list entry, on the group's stream. */
export const addEntry: Decider<AddEntry, GroupState, GroupEvent> = {
  decide: decideAddEntry,
  evolve: evolveGroup,
  initialState: initialGroupState,
};
