/**
 * The allow-list of a group: an entry added (an external recipient with an approved amount and a
 * lifetime, or a protocol) or removed; the rules are the group's decider (domain/group.ts). Adding an
 * entry, or adding its address again with a new budget or lifetime, widens what agents may spend: a
 * proposal (`allow_list.add`, executed once the admins signed). Removing one narrows it: at once.
 */
import { decideAddEntry, decideRemoveEntry } from '../domain/group';
import { streams, type WhitelistEntryAdded } from '../domain/events';
import { checkRecipient } from '../domain/tokens';
import type { WhitelistRequest } from '../contract/operator/allow-list';
import type { Context } from './context';
import { newId } from './credentials';
import { ownedGroup } from './groups';
import { onGroup } from './governed';

/** An entry as the operator asks for it: the allow-list route's request (contract/operator/allow-list.ts). */
export type EntryInput = WhitelistRequest;

/** An entry as the routes answer it. */
export function entryView(d: WhitelistEntryAdded['data']) {
  return {
    whitelist_entry_pda: d.entry_id,
    address: d.address,
    type: d.type,
    label: d.label ?? null,
    approved_amount: d.approved_amount ?? null,
    ttl_expires_at: d.ttl_expires_at !== undefined ? new Date(d.ttl_expires_at).toISOString() : null,
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
};

export async function removeWhitelistEntry(ctx: Context, wallet: string, groupId: string, entryId: string) {
  await ownedGroup(ctx, wallet, groupId);
  await ctx.groups.handle(streams.group(groupId), (state) => ({
    events: decideRemoveEntry({ entry_id: entryId, now: ctx.now() }, state),
    result: undefined,
  }));
  return { removed: entryId };
}
