/**
 * A group's agents: an invitation (a wallet in custody, its limits, a one-time code), a change of
 * limits, revocation, a new API key, and the emergency withdrawal.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { object } from '../build';
import { contractTag } from '../openapi';
import { AmountOutput, Count, Identifier, Text, Timestamp, type Shape } from '../schemas';
import {
  LIMIT_NAMES,
  Label,
  LimitProperties,
  LimitsData,
  LimitsInputSchema,
  OWNER,
  WRITE_HEADERS,
} from './common';

export const InvitationRequest = object({ ...LimitProperties, label: Label }, [...LIMIT_NAMES, 'label']);

/** A change of an agent's limits: at least one of them. */
export const LimitsChangeRequest = {
  ...LimitsInputSchema,
  minProperties: 1,
} as const satisfies JSONSchema;

/** Actions that take no input (revoke, rotate-key): an empty object, or no body. */
export const EmptyRequest = {
  type: 'object',
  additionalProperties: false,
} as const satisfies JSONSchema;

/** The emergency withdrawal: where the agent's tokens go (the operator's own wallet when absent). */
export const EmergencyWithdrawRequest = object({ destination: Identifier }, ['destination']);

export const InvitationResponse = object({
  invitation_code: { type: 'string', description: 'One-time; shown once.' },
  agent_wallet_pda: Identifier,
  expires_at: Timestamp,
  limits: LimitsData,
});

export const AgentLimitsResponse = object({ agent_wallet_pda: Identifier, limits: LimitsData });

const Revoked = { type: 'string', const: 'revoked' } as const;

export const RevokeResponse = object({ agent_wallet_pda: Identifier, is_active: Revoked });

export const RotateKeyResponse = object({
  agent_wallet_pda: Identifier,
  api_key: { type: 'string', description: 'The new key, shown once; the old one is refused from now on.' },
});

export const EmergencyWithdrawResponse = object({
  agent_wallet_pda: Identifier,
  is_active: Revoked,
  destination: Identifier,
  failed_intents: { ...Count, description: 'Accepted intents not yet submitted, failed by the stop.' },
  redeemed: {
    type: 'array',
    items: object({
      lending_program: Identifier,
      receipt_mint: Identifier,
      receipt_token: Text,
      receipt_amount: AmountOutput,
      mint: Identifier,
      token: Text,
      amount: AmountOutput,
      tx_sig: Text,
    }),
  },
  moved: {
    type: 'array',
    items: object({ mint: Identifier, token: Text, amount: AmountOutput, tx_sig: Text }),
  },
});

export const OPERATOR_AGENTS = contractTag({
  name: 'agents',
  description: 'Invitations, limits, revocation, key rotation, the emergency withdrawal.',
  schemas: {
    InvitationRequest,
    InvitationResponse,
    LimitsChangeRequest,
    AgentLimitsResponse,
    EmptyRequest,
    RevokeResponse,
    EmergencyWithdrawRequest,
    EmergencyWithdrawResponse,
    RotateKeyResponse,
  },
  parameters: { agent: Identifier },
  operations: {
    inviteAgent: {
      method: 'post',
      path: '/orchestrator/groups/{group}/invitations',
      tag: 'agents',
      operationId: 'inviteAgent',
      headers: WRITE_HEADERS,
      summary: 'Invite an agent: a wallet in custody, its limits, and a one-time code (shown once).',
      request: 'InvitationRequest',
      optionalBody: true,
      response: 'InvitationResponse',
      status: 201,
      errors: [...OWNER, 'invalid_amount', 'conflict'],
    },
    changeLimits: {
      method: 'patch',
      path: '/orchestrator/agents/{agent}/limits',
      tag: 'agents',
      operationId: 'changeLimits',
      headers: WRITE_HEADERS,
      summary: 'Change an agent’s limits (any of them); a revoked agent’s stay.',
      request: 'LimitsChangeRequest',
      response: 'AgentLimitsResponse',
      errors: [...OWNER, 'invalid_amount', 'conflict'],
    },
    revokeAgent: {
      method: 'post',
      path: '/orchestrator/agents/{agent}/revoke',
      tag: 'agents',
      operationId: 'revokeAgent',
      headers: WRITE_HEADERS,
      summary: 'Revoke an agent: its key is refused from now on, for good.',
      request: 'EmptyRequest',
      optionalBody: true,
      response: 'RevokeResponse',
      errors: OWNER,
    },
    emergencyWithdraw: {
      method: 'post',
      path: '/orchestrator/agents/{agent}/emergency-withdraw',
      tag: 'agents',
      operationId: 'emergencyWithdraw',
      headers: WRITE_HEADERS,
      summary: 'Revoke an agent, redeem its venue positions and move every token it holds to a destination.',
      description:
        'The destination is the operator’s own wallet when absent. Safe to repeat: a drain cut short is finished by the next call.',
      request: 'EmergencyWithdrawRequest',
      optionalBody: true,
      response: 'EmergencyWithdrawResponse',
      errors: [...OWNER, 'recipient_invalid'],
    },
    rotateKey: {
      method: 'post',
      path: '/orchestrator/agents/{agent}/rotate-key',
      tag: 'agents',
      operationId: 'rotateKey',
      headers: WRITE_HEADERS,
      summary: 'A new API key for the agent (shown once); the old one is refused from now on.',
      request: 'EmptyRequest',
      optionalBody: true,
      response: 'RotateKeyResponse',
      errors: [...OWNER, 'conflict'],
    },
  },
});

export type InvitationRequest = Shape<typeof InvitationRequest>;
export type LimitsChangeRequest = Shape<typeof LimitsChangeRequest>;
export type EmergencyWithdrawRequest = Shape<typeof EmergencyWithdrawRequest>;
