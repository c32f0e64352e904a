/**
 * The allow-list of a group: its owner adds an entry (an external recipient with an approved amount
 * and a lifetime, or a protocol) or removes one; the rules are the group's decider (domain/group.ts).
 */
import { decideAddEntry, decideRemoveEntry } from '../domain/group';
import { streams } from '../domain/events';
import { checkRecipient } from '../domain/tokens';
import type { WhitelistRequest } from '../contract/operator/allow-list';
import type { Context } from './context';
import { newId } from './credentials';
import { ownedGroup } from './groups';

/** An entry as the operator asks for it: the allow-list route's request (contract/operator/allow-list.ts). */
export type EntryInput = WhitelistRequest;

export async function addWhitelistEntry(ctx: Context, wallet: string, groupId: string, input: EntryInput) {
  await ownedGroup(ctx, wallet, groupId);
  checkRecipient(input.address);
  const entryId = newId();
  const [added] = await ctx.groups.handle(streams.group(groupId), (state) => {
    const events = decideAddEntry({ entry_id: entryId, ...input, now: ctx.now() }, state);
    return { events, result: events };
  });
  const d = added!.data;
  return {
    whitelist_entry_pda: d.entry_id,
    address: d.address,
    type: d.type,
    label: d.label ?? null,
    approved_amount: d.approved_amount ?? null,
    ttl_expires_at: d.ttl_expires_at !== undefined ? new Date(d.ttl_expires_at).toISOString() : null,
  };
}

export async function removeWhitelistEntry(ctx: Context, wallet: string, groupId: string, entryId: string) {
  await ownedGroup(ctx, wallet, groupId);
  await ctx.groups.handle(streams.group(groupId), (state) => ({
    events: decideRemoveEntry({ entry_id: entryId, now: ctx.now() }, state),
    result: undefined,
  }));
  return { removed: entryId };
}
