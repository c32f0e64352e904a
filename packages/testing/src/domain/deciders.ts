/**
 * The deciders of the domain in the shape `DeciderSpecification.for` takes: the stream's fold (the
 * production one) and one decide function: a command and the state its stream's events fold into, in;
 * new events, out.
 */
import {
  agentFold,
  budgetFold,
  decideAddEntry,
  decideChangeLimits,
  decideIntent,
  decideKeyRefused,
  decideSettleBudget,
  decideSettleIntent,
  groupFold,
  type AddEntry,
  type AgentEvent,
  type AgentState,
  type AllowEntry,
  type BudgetEvent,
  type BudgetState,
  type Decider,
  type GroupEvent,
  type GroupState,
  type IntentCommand,
} from '@tokenops/shared';
import { group } from './fixtures';

/** The spend decision of an agent of `inGroup` (the fixture group by default): what its stream records. */
export const spend = (inGroup: GroupState = group()): Decider<IntentCommand, AgentState, AgentEvent> => ({
  ...agentFold,
  decide: (cmd, agent) => decideIntent(cmd, { group: inGroup, agent }).agentEvents,
});

/** An accepted intent's outcome, on the agent's stream. */
export const settleIntent = { ...agentFold, decide: decideSettleIntent };

/** An operator's change of an agent's limits. */
export const changeLimits = { ...agentFold, decide: decideChangeLimits };

/** A spend refused for a key the agent may no longer use, on the agent's stream. */
export const keyRefused = { ...agentFold, decide: decideKeyRefused };

/** A reservation's settlement on the budget stream of the type-1 `entry`. */
export const settleBudget = (
  entry: AllowEntry,
): Decider<Parameters<typeof decideSettleBudget>[0], BudgetState, BudgetEvent> => ({
  ...budgetFold,
  decide: (cmd, state) => decideSettleBudget(cmd, entry, state),
});

/** An operator's new allow-list entry, on the group's stream. */
export const addEntry: Decider<AddEntry, GroupState, GroupEvent> = { ...groupFold, decide: decideAddEntry };
