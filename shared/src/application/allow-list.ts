/**
 * The allow-list of a group: an entry added (an external recipient with an approved amount and a
 * lifetime, or a protocol; either with a daily limit of its own) or removed, and an entry's daily limit
 * changed; the rules are the group's decider (domain/group.ts). Adding an entry, or adding its address
 * again with a new budget or lifetime, widens what agents may spend: a proposal (`allow_list.add`,
 * executed once the admins signed). Removing one narrows it: at once. An entry's daily limit set or
 * lowered narrows it (at once), lifted or raised widens it (`allow_list.daily_limit`, a proposal).
 */
import {
  decideAddEntry,
  decideRemoveEntry,
  decideSetEntryDailyLimit,
  entryById,
  entryDailyLimitWidens,
  evolveGroup,
} from '../domain/group';
import { streams, type WhitelistEntryAdded } from '../domain/events';
import { checkRecipient } from '../domain/tokens';
import type { WhitelistRequest } from '../contract/operator/allow-list';
import type { Context } from './context';
import { newId } from './credentials';
import { allowEntryView, ownedGroup } from './groups';
import { byProposal, inForce, onGroup, type GovernedAction } from './governed';

/** An entry as the operator asks for it: the allow-list route's request (contract/operator/allow-list.ts). */
export type EntryInput = WhitelistRequest;

/** An entry just added, as the routes answer it: a new entry has counted nothing yet. */
export function entryView(d: WhitelistEntryAdded['data']) {
  return {
    whitelist_entry_pda: d.entry_id,
    address: d.address,
    type: d.type,
    label: d.label ?? null,
    approved_amount: d.approved_amount ?? null,
    ttl_expires_at: d.ttl_expires_at !== undefined ? new Date(d.ttl_expires_at).toISOString() : null,
    daily_limit: d.daily_limit ?? null,
    spent_last_24h: d.daily_limit !== undefined ? '0' : null,
  };
}

export const ALLOW_LIST_ACTIONS = {
  /** Adds an entry, or replaces its address's (a new budget, a new lifetime): the route's body. */
  'allow_list.add': onGroup(
    (params, state, now) => {
      const input = params as unknown as EntryInput;
      checkRecipient(input.address);
      return decideAddEntry({ ...input, entry_id: newId(), now }, state);
    },
    (_groupId, _after, [added]) => entryView((added as WhitelistEntryAdded).data),
  ),
  /**
   * An entry's own daily limit (`{entry, daily_limit}`; null lifts it): at once when it is set or
   * lowered, a proposal when it is lifted or raised. The entry keeps its id, so its window keeps what
   * it counted.
   */
  'allow_list.daily_limit': {
    async change(ctx, groupId, params, proposalId) {
      const stream = streams.group(groupId);
      const loaded = await ctx.groups.load(stream);
      const before = entryById(loaded.state, String(params.entry));
      const events = byProposal(
        decideSetEntryDailyLimit(
          { entry_id: before.entryId, daily_limit: params.daily_limit, now: ctx.now() },
          loaded.state,
        ),
        proposalId,
      );
      if (events.length === 0) throw inForce();
      const after = events.reduce(evolveGroup, loaded.state).entries.get(before.address)!;
      const budget = after.dailyLimit
        ? (await ctx.budgets.load(streams.budget(after.entryId))).state
        : undefined;
      return {
        staged: ctx.groups.stage(stream, loaded, events),
        result: allowEntryView(after, budget, ctx.now()),
        widens: entryDailyLimitWidens(before.dailyLimit, after.dailyLimit),
      };
    },
  } satisfies GovernedAction,
};

export async function removeWhitelistEntry(ctx: Context, wallet: string, groupId: string, entryId: string) {
  await ownedGroup(ctx, wallet, groupId);
  await ctx.groups.handle(streams.group(groupId), (state) => ({
    events: decideRemoveEntry({ entry_id: entryId, now: ctx.now() }, state),
    result: undefined,
  }));
  return { removed: entryId };
}
