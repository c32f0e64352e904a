/**
 * Groups: one is created owned by the signed-in wallet with default limits for its agents; the
 * caller's groups; a group as it stands (its agents, its allow-list with each budget).
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { Count, Identifier, Text, Timestamp, type Shape } from '../schemas';
import { WhitelistEntryResponse } from './allow-list';
import { FreezeState, Proposal } from './governance';
import { MEMBER_ROLES } from './members';
import {
  LIMIT_NAMES,
  LimitProperties,
  LimitsData,
  LimitsInputSchema,
  NullableAmountText,
  NullableText,
  OWNER,
  SIGNED_IN,
  WRITE_HEADERS,
} from './common';

/** A group: its default limits, at the top level or under `default_limits`. */
export const CreateGroupRequest = object({ ...LimitProperties, default_limits: LimitsInputSchema }, [
  ...LIMIT_NAMES,
  'default_limits',
]);

export const GroupCreatedResponse = object({
  group_config_pda: Identifier,
  owner_wallet: Identifier,
  base_mint: Identifier,
  default_limits: LimitsData,
  aggregator: Text,
});

const GroupName = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description: 'What its admins call it.',
} as const;
const GroupDescription = {
  type: 'string',
  minLength: 1,
  maxLength: 500,
  description: 'What it is for.',
} as const;

/** New defaults for new agents, a name, a description: any of them, at least one. */
/** New defaults for new agents, a name, a description: any of them (one at least, said by the route). */
export const UpdateGroupRequest = object(
  {
    per_tx_limit: LimitProperties.per_tx_limit,
    daily_limit: LimitProperties.daily_limit,
    hourly_tx_cap: LimitProperties.hourly_tx_cap,
    name: GroupName,
    description: GroupDescription,
  },
  ['per_tx_limit', 'daily_limit', 'hourly_tx_cap', 'name', 'description'],
);

export const GroupUpdatedResponse = object({
  group_config_pda: Identifier,
  name: { ...NullableText, description: 'What its admins call it; null until named.' },
  description: { ...NullableText, description: 'What it is for; null until said.' },
  default_limits: LimitsData,
});

export const GroupResponse = object({
  group_config_pda: Identifier,
  name: { ...NullableText, description: 'What its admins call it; null until named.' },
  description: { ...NullableText, description: 'What it is for; null until said.' },
  owner_wallet: Identifier,
  base_mint: Identifier,
  default_limits: LimitsData,
  frozen: {
    ...FreezeState,
    description: 'The group’s freeze: every spend of its agents is refused while set.',
  },
  agents: {
    type: 'array',
    items: object({
      agent_wallet_pda: Identifier,
      label: NullableText,
      status: {
        type: 'string',
        enum: ['invited', 'active', 'revoked'],
        description:
          '`invited`: its code is not redeemed yet; `active`: registered, its key spends; `revoked`: final.',
      },
      limits: { ...LimitsData, description: 'Its limits now (the invitation’s until it registers).' },
      frozen: FreezeState,
    }),
  },
  whitelist: {
    type: 'array',
    items: {
      ...WhitelistEntryResponse,
      properties: {
        ...WhitelistEntryResponse.properties,
        budget_used: {
          ...NullableAmountText,
          description: 'Type 1: the approved amount confirmed spends used; null for other types.',
        },
        budget_reserved: {
          ...NullableAmountText,
          description: 'Type 1: what spends not settled yet hold of it; null for other types.',
        },
        budget_remaining: {
          ...NullableAmountText,
          description: 'Type 1: what a spend may still use (0 once voided); null for other types.',
        },
      },
      required: [...WhitelistEntryResponse.required, 'budget_used', 'budget_reserved', 'budget_remaining'],
    },
  },
});

export const GroupListResponse = object({
  groups: {
    type: 'array',
    description:
      'The groups the signed-in wallet is a member of, in the order it became one (no one else’s), each with its role.',
    items: object({
      group_config_pda: Identifier,
      created_at: Timestamp,
      role: {
        type: 'string',
        enum: MEMBER_ROLES,
        description: 'The signed-in wallet’s role in the group (`admin` for its creator).',
      },
      base_mint: Identifier,
      default_limits: LimitsData,
      agents: { ...Count, description: 'Agents invited to it (registered or not, revoked included).' },
      whitelist_entries: { ...Count, description: 'Allow-list entries in force (its agents’ included).' },
    }),
  },
});

export const OPERATOR_GROUPS = contractTag({
  name: 'groups',
  description:
    'Groups: create one with default limits for its agents, list the caller’s, read one as it stands.',
  schemas: {
    CreateGroupRequest,
    GroupCreatedResponse,
    GroupListResponse,
    GroupResponse,
    UpdateGroupRequest,
    GroupUpdatedResponse,
    Proposal,
  },
  parameters: { group: Identifier },
  operations: {
    createGroup: {
      method: 'post',
      path: '/orchestrator/groups',
      tag: 'groups',
      operationId: 'createGroup',
      headers: WRITE_HEADERS,
      summary: 'Create a group owned by the signed-in wallet, with default limits for its agents.',
      description: 'Only wallets in ORCHESTRATOR_WALLETS may (any wallet when it is unset).',
      request: 'CreateGroupRequest',
      optionalBody: true,
      response: 'GroupCreatedResponse',
      status: 201,
      errors: [...SIGNED_IN, 'forbidden', 'invalid_amount'],
    },
    listGroups: {
      method: 'get',
      path: '/orchestrator/groups',
      tag: 'groups',
      operationId: 'listGroups',
      summary: 'The groups the signed-in wallet is a member of, with its role in each.',
      description:
        'Every group the signed-in wallet is a member of (its creator is its first admin), each with the wallet’s role, its base token, its default limits and how many agents and allow-list entries it has, in the order the wallet became a member; a group just created is listed. Groups it is no member of are never listed.',
      response: 'GroupListResponse',
      errors: SIGNED_IN,
    },
    getGroup: {
      method: 'get',
      path: '/orchestrator/groups/{group}',
      tag: 'groups',
      operationId: 'getGroup',
      summary:
        'The group: default limits, agents with their status and limits, the allow-list with what each budget used and has left.',
      description:
        'The group as it stands in the log: its base token and default limits, its agents with their status and limits, and its allow-list with each recipient’s budget: used, reserved by spends not settled yet, and remaining. Only the group’s owner: another wallet’s group is `403 forbidden`, an unknown one `404 not_found`.',
      response: 'GroupResponse',
      errors: OWNER,
    },
    updateGroup: {
      method: 'patch',
      path: '/orchestrator/groups/{group}',
      tag: 'groups',
      operationId: 'updateGroup',
      headers: WRITE_HEADERS,
      summary:
        'New defaults for the group’s new agents, its name, its description (a rise: a proposal, `202`).',
      description:
        'Lowering a default, naming or describing the group is made at once by any one admin; raising a default widens what new agents may spend, so the answer is `202` with a proposal the group’s admins sign (a change that lowers one and raises another is a proposal too). Agents invited already keep their limits. A body naming none of the fields is `400`; what is in force already is `409 conflict`. Only admins of the group: anyone else is `403 forbidden`.',
      request: 'UpdateGroupRequest',
      response: 'GroupUpdatedResponse',
      proposes: true,
      result: 'GroupUpdatedResponse',
      errors: [...OWNER, 'invalid_amount', 'conflict'],
    },
  },
});

export type CreateGroupRequest = Shape<typeof CreateGroupRequest>;
export type UpdateGroupRequest = Shape<typeof UpdateGroupRequest>;
