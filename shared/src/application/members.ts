/**
 * A group's team (docs/governance.md): its members with their roles and its governance policy, read
 * by any member. Every change of either is a proposal (proposals.ts: `member.add`, `member.remove`,
 * `governance.set`), made by the deciders of domain/governance.ts when it executes.
 */
import { adminsOf, type GovernanceState } from '../domain/governance';
import type { Context } from './context';
import { ownedGroup } from './groups';

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
