/**
 * Members and the governance policy (docs/governance.md): a group's team. Every member signs in with
 * its own wallet and acts within its role: an `admin` changes the group (and proposes and signs what
 * widens it), an `approver` decides held spends, a `viewer` reads. Any member change and any change of
 * the governance policy widens who may act, so each is a proposal (`202`) the admins sign.
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { Count, Identifier, type Shape } from '../schemas';
import { OWNER } from './common';
import { Proposal } from './governance';

export const MEMBER_ROLES = ['admin', 'approver', 'viewer'] as const;

const Role = {
  type: 'string',
  enum: MEMBER_ROLES,
  description:
    '`admin`: changes the group, proposes and signs widening changes; `approver`: decides held spends; `viewer`: reads, changes nothing.',
} as const;

export const Member = object({ wallet: Identifier, role: Role });

export const MemberRequest = object({ wallet: Identifier, role: Role });

export const MembersResponse = object({
  group_config_pda: Identifier,
  members: { type: 'array', items: Member, description: 'In the order they became members.' },
});

const Quorum = {
  type: 'integer',
  format: 'int32',
  minimum: 1,
  maximum: 100,
  description: 'Distinct admins whose signatures a widening change needs (at most the number of admins).',
} as const;
const DelaySeconds = {
  type: 'integer',
  format: 'int32',
  minimum: 0,
  maximum: 518_400,
  description: 'How long a proposal with its quorum waits before it executes (at most 6 days).',
} as const;
const SafeDestination = {
  ...Identifier,
  description: 'Where an emergency withdrawal goes unless a proposal says otherwise.',
} as const;

export const GovernanceRequest = object(
  { quorum: Quorum, delay_seconds: DelaySeconds, safe_destination: SafeDestination },
  ['quorum', 'delay_seconds', 'safe_destination'],
);

export const GovernanceResponse = object({
  group_config_pda: Identifier,
  quorum: Quorum,
  delay_seconds: DelaySeconds,
  safe_destination: SafeDestination,
  admins: { ...Count, description: 'How many admins the group has.' },
});

const A_PROPOSAL =
  'A member change widens who may act, so it is not made here: the answer is `202` with the proposal, and nothing changes until a quorum of the group’s admins has signed its `message` (POST /orchestrator/proposals/{proposal}/sign). Bad input is `400` (among it a change that would leave fewer admins than the quorum) and a change that does not apply `404`/`409` at once. Only admins of the group.';

export const OPERATOR_MEMBERS = contractTag({
  name: 'members',
  description:
    'The group’s team: members with their roles, and the governance policy (quorum, delay, safe destination). Every change of either is a proposal.',
  schemas: { Member, MemberRequest, MembersResponse, GovernanceRequest, GovernanceResponse, Proposal },
  parameters: { wallet: Identifier },
  operations: {
    listMembers: {
      method: 'get',
      path: '/orchestrator/groups/{group}/members',
      tag: 'members',
      operationId: 'listMembers',
      summary: 'The group’s members and their roles.',
      description: 'Any member of the group reads them; anyone else is `403 forbidden`.',
      response: 'MembersResponse',
      errors: OWNER,
    },
    addMember: {
      method: 'post',
      path: '/orchestrator/groups/{group}/members',
      tag: 'members',
      operationId: 'addMember',
      summary: 'Propose a member, or a new role for one (a proposal: `202`).',
      description: `${A_PROPOSAL} The same role again is \`409 conflict\`.`,
      request: 'MemberRequest',
      response: 'Proposal',
      result: 'MembersResponse',
      status: 202,
      errors: [...OWNER, 'conflict'],
    },
    removeMember: {
      method: 'delete',
      path: '/orchestrator/groups/{group}/members/{wallet}',
      tag: 'members',
      operationId: 'removeMember',
      summary: 'Propose to remove a member (a proposal: `202`).',
      description: `${A_PROPOSAL} A wallet that is not a member is \`404 not_found\`; removing the last admin \`409 conflict\`.`,
      response: 'Proposal',
      result: 'MembersResponse',
      status: 202,
      errors: [...OWNER, 'conflict'],
    },
    getGovernance: {
      method: 'get',
      path: '/orchestrator/groups/{group}/governance',
      tag: 'members',
      operationId: 'getGovernance',
      summary: 'The governance policy in force: quorum, delay, safe destination.',
      description:
        'Defaults: quorum 1, no delay, the creator’s wallet as the safe destination. Any member of the group reads it; anyone else is `403 forbidden`.',
      response: 'GovernanceResponse',
      errors: OWNER,
    },
    setGovernance: {
      method: 'put',
      path: '/orchestrator/groups/{group}/governance',
      tag: 'members',
      operationId: 'setGovernance',
      summary: 'Propose a governance policy (a proposal: `202`); the fields left out keep their value.',
      description: `Any change of the governance policy is a proposal, signed under the policy in force: the answer is \`202\` with it. A quorum above the number of admins is \`400\`; the policy already in force is \`409 conflict\`. Only admins of the group.`,
      request: 'GovernanceRequest',
      response: 'Proposal',
      result: 'GovernanceResponse',
      status: 202,
      errors: [...OWNER, 'conflict'],
    },
  },
});

export type MemberRequest = Shape<typeof MemberRequest>;
export type GovernanceRequest = Shape<typeof GovernanceRequest>;
