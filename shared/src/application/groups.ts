/**
 * Groups, as their members run them: a group created by the caller's wallet (its first admin), with
 * default limits for its agents; the caller's groups, with its role in each; a group as it stands.
 * Every action on a group checks the wallet's role in it (ownedGroup); the API authenticated the wallet.
 */
import Big from 'big.js';
import {
  authorizeOperator,
  decideCreateGroup,
  decideUpdateGroup,
  type AllowEntry,
  type GroupState,
} from '../domain/group';
import { limitsWiden, roleOf, type Capability } from '../domain/governance';
import { budgetRemaining, entrySpentInDay, type BudgetState } from '../domain/budget';
import { ENTRY_TYPE, streams } from '../domain/events';
import { limitsToData, mergeLimits, type LimitsInput } from '../domain/limits';
import { checkRecipient } from '../domain/tokens';
import { amountText } from '../money';
import type { Context } from './context';
import { newId } from './credentials';
import { agentFreeze, groupFreeze } from './freeze';
import { onGroup } from './governed';

/**
 * The group, when `wallet` is a member whose role has `capability` (`admin` unless said: a change;
 * `read` for a read): `forbidden` otherwise, `not_found` when there is no group.
 */
export async function ownedGroup(
  ctx: Context,
  wallet: string,
  groupId: string,
  capability: Capability = 'admin',
): Promise<GroupState> {
  const { state } = await ctx.groups.load(streams.group(groupId));
  authorizeOperator(state, wallet, capability);
  return state;
}

export async function createGroup(
  ctx: Context,
  wallet: string,
  input: { label?: string; limits?: LimitsInput } = {},
) {
  checkRecipient(wallet);
  const groupId = newId();
  const base = ctx.chain.tokens.find((t) => t.symbol === ctx.settings.baseSymbol);
  if (!base) throw new Error(`the base token ${ctx.settings.baseSymbol} is not in the chain's registry`);
  const limits = mergeLimits(ctx.settings.defaultLimits, input.limits ?? {});
  const aggregatorEntry = newId();
  await ctx.groups.handle(streams.group(groupId), (state) => ({
    events: decideCreateGroup(
      {
        group_id: groupId,
        owner_wallet: wallet,
        base_mint: base.mint,
        default_limits: limits,
        aggregator: { entry_id: aggregatorEntry, address: ctx.settings.aggregator },
        now: ctx.now(),
      },
      state,
    ),
    result: undefined,
  }));
  return {
    group_config_pda: groupId,
    owner_wallet: wallet,
    base_mint: base.mint,
    default_limits: limitsToData(limits),
    aggregator: ctx.settings.aggregator,
  };
}

/**
 * An entry as it stands, as the routes answer it; with its daily limit, what its window holds at `now`
 * (`budget`: its budget stream, read when it has one).
 */
export function allowEntryView(e: AllowEntry, budget: BudgetState | undefined, now: number) {
  return {
    whitelist_entry_pda: e.entryId,
    address: e.address,
    type: e.type,
    label: e.label ?? null,
    approved_amount: e.approvedAmount ? amountText(e.approvedAmount) : null,
    ttl_expires_at: e.ttlExpiresAt !== undefined ? new Date(e.ttlExpiresAt).toISOString() : null,
    daily_limit: e.dailyLimit ? amountText(e.dailyLimit) : null,
    spent_last_24h: e.dailyLimit && budget ? amountText(entrySpentInDay(budget, now)) : null,
  };
}

/**
 * The group as its owner sees it, from the log: defaults; each agent with its status (`invited` until
 * its code is redeemed, then `active` or `revoked`) and its limits now; each allow-list entry, for a
 * budgeted one (type 1) how much of the budget confirmed spends used, open spends hold, and is left,
 * and for one with a daily limit what its window holds.
 */
export async function describeGroup(ctx: Context, wallet: string, groupId: string) {
  const g = await ownedGroup(ctx, wallet, groupId, 'read');
  const agents = await Promise.all(
    [...g.invitations.values()].map(async (i) => {
      const { state } = await ctx.agents.load(streams.agent(i.agentId));
      const registered = state.status !== 'unregistered';
      return {
        agent_wallet_pda: i.agentId,
        label: i.label ?? null,
        status: registered ? state.status : 'invited',
        limits: limitsToData(registered ? state.limits : i.limits),
        frozen: agentFreeze(state),
      };
    }),
  );
  const now = ctx.now();
  const whitelist = await Promise.all(
    [...g.entries.values()].map(async (e) => {
      const stream = e.type === ENTRY_TYPE.recipient || e.dailyLimit !== undefined;
      const state = stream ? (await ctx.budgets.load(streams.budget(e.entryId))).state : undefined;
      // The budget's figures are a type-1 entry's; a type-2 entry's stream holds its daily window only.
      const budget = e.type === ENTRY_TYPE.recipient ? state : undefined;
      const reserved = budget && [...budget.reserved.values()].reduce((a, b) => a.plus(b), new Big(0));
      return {
        ...allowEntryView(e, state, now),
        budget_used: budget ? amountText(budget.used) : null,
        budget_reserved: reserved ? amountText(reserved) : null,
        budget_remaining: budget ? amountText(budgetRemaining(e, budget)) : null,
      };
    }),
  );
  return {
    group_config_pda: g.groupId,
    name: g.name ?? null,
    description: g.description ?? null,
    owner_wallet: g.ownerWallet,
    base_mint: g.baseMint,
    default_limits: limitsToData(g.defaultLimits),
    frozen: groupFreeze(g),
    agents,
    whitelist,
  };
}

/**
 * The caller's groups, in the order given (the read models' list of the groups the wallet is a member
 * of, in the order it became one): each one's base token, defaults, the caller's role and how many
 * agents and allow-list entries it has, from the log. A group it was removed from a moment ago (the
 * views behind) is left out.
 */
export async function listGroups(ctx: Context, wallet: string, memberOf: readonly { group_id: string }[]) {
  const groups = await Promise.all(
    memberOf.map(async ({ group_id }) => {
      const { state: g } = await ctx.groups.load(streams.group(group_id));
      const role = roleOf(g.governance, wallet);
      if (!g.exists || role === undefined) return [];
      return [
        {
          group_config_pda: g.groupId,
          created_at: new Date(g.createdAt).toISOString(),
          role,
          base_mint: g.baseMint,
          default_limits: limitsToData(g.defaultLimits),
          agents: g.invitations.size,
          whitelist_entries: g.entries.size,
        },
      ];
    }),
  );
  return { groups: groups.flat() };
}

export const GROUP_ACTIONS = {
  /**
   * New defaults for new agents, a name, a description (the route's body): at once when no default
   * rises, a proposal otherwise.
   */
  'group.update': onGroup(
    (params, state, now) => decideUpdateGroup({ ...updateOf(params), now }, state),
    (groupId, after) => ({
      group_config_pda: groupId,
      name: after.name ?? null,
      description: after.description ?? null,
      default_limits: limitsToData(after.defaultLimits),
    }),
    {
      widens: (params, before) =>
        limitsWiden(before.defaultLimits, mergeLimits(before.defaultLimits, updateOf(params).limits ?? {})),
    },
  ),
};

/** The body of a group's update, as the decider takes it. */
function updateOf(params: Record<string, unknown>) {
  const { name, description, ...limits } = params as { name?: string; description?: string } & LimitsInput;
  return {
    ...(Object.keys(limits).length > 0 && { limits }),
    ...(name !== undefined && { name }),
    ...(description !== undefined && { description }),
  };
}
