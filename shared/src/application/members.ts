/**
 * A group's team (docs/governance.md): its members with their roles and its governance policy, read
 * by any member. Every change of either is a proposal (proposals.ts: `member.add`, `member.remove`,
 * `governance.set`), made by the deciders of domain/governance.ts when it executes.
 */
import {
  adminsOf,
  decideAddMember,
  decideRemoveMember,
  decideSetGovernance,
  type GovernanceState,
} from '../domain/governance';
import type { Context } from './context';
import { ownedGroup } from './groups';
import { onGroup } from './governed';

export const membersView = (groupId: string, governance: GovernanceState) => ({
  group_config_pda: groupId,
  members: [...governance.members].map(([wallet, role]) => ({ wallet, role })),
});

export const governanceView = (groupId: string, governance: GovernanceState) => ({
  group_config_pda: groupId,
  quorum: governance.policy.quorum,
  delay_seconds: governance.policy.delaySeconds,
  safe_destination: governance.policy.safeDestination,
  admins: adminsOf(governance).length,
});

export async function listMembers(ctx: Context, wallet: string, groupId: string) {
  return membersView(groupId, (await ownedGroup(ctx, wallet, groupId, 'read')).governance);
}

export async function getGovernance(ctx: Context, wallet: string, groupId: string) {
  return governanceView(groupId, (await ownedGroup(ctx, wallet, groupId, 'read')).governance);
}

/** Any member change and any change of the governance policy is a proposal (proposals.ts). */
export const MEMBER_ACTIONS = {
  /** Adds a member, or gives a member another role: `{wallet, role}`. */
  'member.add': onGroup(
    (params, state, now) =>
      decideAddMember({ wallet: String(params.wallet), role: params.role, now }, state.governance),
    (groupId, after) => membersView(groupId, after.governance),
  ),
  /** Removes a member: `{wallet}`. */
  'member.remove': onGroup(
    (params, state, now) => decideRemoveMember({ wallet: String(params.wallet), now }, state.governance),
    (groupId, after) => membersView(groupId, after.governance),
  ),
  /** Puts a governance policy in force: the fields given, over the policy in force. */
  'governance.set': onGroup(
    (params, state, now) => decideSetGovernance({ ...params, now }, state.governance),
    (groupId, after) => governanceView(groupId, after.governance),
  ),
};
