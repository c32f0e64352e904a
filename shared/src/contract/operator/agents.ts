/**
 * A group's agents: an invitation (a wallet in custody, its limits, a one-time code), a change of
 * limits, revocation, a new API key, and the emergency withdrawal.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { object } from '../build';
import { contractTag } from '../openapi';
import { Proposal } from './governance';
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
    Proposal,
  },
  parameters: { agent: Identifier },
  operations: {
    inviteAgent: {
      method: 'post',
      path: '/orchestrator/groups/{group}/invitations',
      tag: 'agents',
      operationId: 'inviteAgent',
      headers: WRITE_HEADERS,
      summary:
        'Propose to invite an agent (a proposal, `202`): once executed, a wallet in custody, its limits, and a one-time code (shown once).',
      description:
        'An invitation hands out power, so it is a proposal: nothing changes until a quorum of the group’s admins has signed its `message` (POST /orchestrator/proposals/{proposal}/sign). Its execution makes an agent of the group: its wallet (held by the service), its limits (the group’s defaults for any not given) and a one-time invitation code the agent redeems at POST /register. The code is in the `result` of the answer to the signature that executed it (`InvitationResponse`), once, and in no log, no other answer, never to a viewer. Bad input is `400` at once. Only admins of the group: anyone else is `403 forbidden`, an unknown group `404 not_found`.',
      request: 'InvitationRequest',
      optionalBody: true,
      response: 'Proposal',
      result: 'InvitationResponse',
      status: 202,
      errors: [...OWNER, 'invalid_amount', 'conflict'],
    },
    changeLimits: {
      method: 'patch',
      path: '/orchestrator/agents/{agent}/limits',
      tag: 'agents',
      operationId: 'changeLimits',
      headers: WRITE_HEADERS,
      summary: 'Change an agent’s limits (any of them); a revoked agent’s stay.',
      description:
        'Sets the limits given (the per-transaction and daily limits, the hourly cap, the approval threshold; the others stay); spends decided from now on are held to them, and what was spent in the window still counts. Lowering any of them applies at once; raising any (or the approval threshold that applies to the agent, or lifting it) widens what it may spend, so the answer is `202` with a proposal the group’s admins sign. A revoked agent’s limits stay: `409 conflict`. Answered once the agent views include it (`X-Data-Stale` says whether they did in time), so the agents see it at once. Only admins of the agent’s group: anyone else is `403 forbidden`, an unknown agent `404 not_found`.',
      request: 'LimitsChangeRequest',
      response: 'AgentLimitsResponse',
      proposes: true,
      result: 'AgentLimitsResponse',
      errors: [...OWNER, 'invalid_amount', 'conflict'],
    },
    revokeAgent: {
      method: 'post',
      path: '/orchestrator/agents/{agent}/revoke',
      tag: 'agents',
      operationId: 'revokeAgent',
      headers: WRITE_HEADERS,
      summary: 'Revoke an agent: its key is refused from now on, for good.',
      description:
        'Revokes the agent for good: its key is refused from now on (`401`), no spend of it is decided any more, and held spends of it are rejected. Its tokens stay in its wallet (emergency-withdraw moves them). Revoking a revoked agent changes nothing. Answered once the agent views include it (`X-Data-Stale` says whether they did in time), so the agents see it at once. Only the owner of the agent’s group: another’s is `403 forbidden`, an unknown agent `404 not_found`.',
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
        'The destination is the group’s safe destination (its governance policy’s: the creator’s wallet unless changed) when absent; there, any one admin drains at once. Anywhere else widens who holds the funds: the answer is `202` with a proposal the group’s admins sign, and nothing changes until it executes (freeze the agent meanwhile to stop its spends); the signature that executes it answers the drain in the proposal’s `result`. Safe to repeat: a drain cut short is finished by the next call. Only admins of the agent’s group.',
      request: 'EmergencyWithdrawRequest',
      optionalBody: true,
      response: 'EmergencyWithdrawResponse',
      proposes: true,
      result: 'EmergencyWithdrawResponse',
      errors: [...OWNER, 'recipient_invalid'],
    },
    rotateKey: {
      method: 'post',
      path: '/orchestrator/agents/{agent}/rotate-key',
      tag: 'agents',
      operationId: 'rotateKey',
      headers: WRITE_HEADERS,
      summary:
        'Kill the agent’s key at once, and propose its new one (a proposal, `202`; the new key shown once).',
      description:
        'The old key is refused from this answer on, whichever API instance is asked (narrowing: at once, by any one admin). A new key hands out power, so it is a proposal (`agent.issue_key`): the answer is `202` with it, and the new key is in the `result` of the answer to the signature that executed it (`RotateKeyResponse`), once (after a governance delay: `GET /orchestrator/proposals/{proposal}/secret`, to its proposer, once). A revoked agent gets none: `409 conflict`. Only admins of the agent’s group: anyone else is `403 forbidden`, an unknown agent `404 not_found`.',
      request: 'EmptyRequest',
      optionalBody: true,
      response: 'Proposal',
      result: 'RotateKeyResponse',
      status: 202,
      errors: [...OWNER, 'conflict'],
    },
  },
});

export type InvitationRequest = Shape<typeof InvitationRequest>;
export type LimitsChangeRequest = Shape<typeof LimitsChangeRequest>;
export type EmergencyWithdrawRequest = Shape<typeof EmergencyWithdrawRequest>;
