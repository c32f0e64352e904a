/**
 * The guard, as the group's members run it (design.md "The guard", docs/guard.md): the group's own
 * limits over all its agents and its guard rules, read by every member and auditor, set by an admin
 * (at once when they narrow, a proposal when a limit is lifted or raised, a rule removed or loosened:
 * GUARD_ACTIONS, rows of the governed actions). What the decision does with them is domain/intent.ts's;
 * what the limits' windows hold is the group's spends stream (domain/group-limits.ts); the rules and
 * what they read of an agent's past, domain/guard.ts.
 */
import { authorizeReader } from '../domain/group';
import {
  decideGroupLimits,
  groupLimitsView,
  groupLimitsWiden,
  hasGroupLimits,
  mergeGroupLimits,
  type GroupLimits,
  type GroupLimitsInput,
} from '../domain/group-limits';
import { streams, type GuardRule } from '../domain/events';
import { decideGuard, guardLoosens, parseGuardRules } from '../domain/guard';
import { DAY_MS, HOUR_MS } from '../domain/time';
import { amountText } from '../money';
import type { Context } from './context';
import { byProposal, inForce, type GovernedAction } from './governed';

export const GUARD_ACTIONS = {
  /** The group's own limits (the route's body): at once when none is lifted or raised, a proposal otherwise. */
  'group.limits': {
    async change(ctx, groupId, params, proposalId) {
      const stream = streams.group(groupId);
      const loaded = await ctx.groups.load(stream);
      // The body as the route's schema let it through: daily_limit and hourly_tx_cap, each optional.
      const input = params as GroupLimitsInput;
      const before = loaded.state.limits;
      const events = byProposal(
        decideGroupLimits({ ...input, group_id: groupId, now: ctx.now() }, before),
        proposalId,
      );
      if (events.length === 0) throw inForce();
      const after = mergeGroupLimits(before, input);
      return {
        staged: ctx.groups.stage(stream, loaded, events),
        result: await limitsAnswer(ctx, groupId, after),
        widens: groupLimitsWiden(before, after),
      };
    },
  },
  /** The group's guard rules (the route's body `{rules}`): at once when none is removed or loosened, a proposal otherwise. */
  'group.guard': {
    async change(ctx, groupId, params, proposalId) {
      const stream = streams.group(groupId);
      const loaded = await ctx.groups.load(stream);
      const rules = parseGuardRules(params);
      const before = loaded.state.guard;
      const events = byProposal(
        decideGuard({ group_id: groupId, rules, now: ctx.now() }, before),
        proposalId,
      );
      if (events.length === 0) throw inForce();
      return {
        staged: ctx.groups.stage(stream, loaded, events),
        result: guardAnswer(groupId, rules),
        widens: guardLoosens(before, rules),
      };
    },
  },
} satisfies Record<string, GovernedAction>;

/** The group's guard rules in force. */
export async function getGuard(ctx: Context, wallet: string, groupId: string) {
  const group = (await ctx.groups.load(streams.group(groupId))).state;
  authorizeReader(group, wallet);
  return guardAnswer(groupId, group.guard);
}

const guardAnswer = (groupId: string, rules: readonly GuardRule[]) => ({
  group_config_pda: groupId,
  rules: [...rules],
});

/** The group's limits, and what their windows hold now (nothing while it has none: no count is kept). */
export async function getGroupLimits(ctx: Context, wallet: string, groupId: string) {
  const group = (await ctx.groups.load(streams.group(groupId))).state;
  authorizeReader(group, wallet);
  return limitsAnswer(ctx, groupId, group.limits);
}

async function limitsAnswer(ctx: Context, groupId: string, limits: GroupLimits) {
  const spends = hasGroupLimits(limits)
    ? (await ctx.groupSpends.load(streams.groupSpends(groupId))).state
    : undefined;
  const now = ctx.now();
  return {
    group_config_pda: groupId,
    ...groupLimitsView(limits),
    spent_last_24h: spends ? amountText(spends.intents.spent(now, DAY_MS, 'counted')) : null,
    operations_last_60m: spends ? spends.intents.ops(now, HOUR_MS, 'counted') : null,
  };
}
