/**
 * Governance (docs/governance.md): the kill switch. Any one admin freezes an agent or its whole group
 * at once; every spend is refused from then on (`agent_frozen`, `group_frozen`).
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { Count, Identifier, Text, Timestamp, type Shape } from '../schemas';
import { NullableText, OWNER, WRITE_HEADERS } from './common';

/** Why the admin froze it: shown to the agent in every refusal, and kept in the log. */
export const FreezeRequest = object({ reason: { type: 'string', minLength: 1, maxLength: 200 } }, ['reason']);

/** Who froze it, why and when; null while it is not frozen. */
export const FreezeState = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['by', 'reason', 'at'],
  properties: {
    by: { ...Text, description: 'The admin’s wallet.' },
    reason: NullableText,
    at: Timestamp,
  },
  description: 'Who froze it, why and when; null while it is not frozen.',
} as const;

const FailedIntents = {
  ...Count,
  description: 'Accepted intents not yet submitted, failed by this freeze (their room given back).',
};

export const AgentFreezeResponse = object({
  agent_wallet_pda: Identifier,
  group_config_pda: Identifier,
  frozen: FreezeState,
  failed_intents: FailedIntents,
});

export const GroupFreezeResponse = object({
  group_config_pda: Identifier,
  frozen: FreezeState,
  failed_intents: FailedIntents,
});

const FREEZE_EFFECT =
  'Every spend decided from now on is refused, whichever API instance decides it; accepted intents not yet submitted fail and give their room back (an intent already submitted is the chain’s); held spends are rejected. Reads, webhooks and the log go on. Freezing again changes nothing but fails what is still open. Lifting a freeze widens what agents may spend: it is a proposal of the group’s admins, not this route.';

export const OPERATOR_GOVERNANCE = contractTag({
  name: 'governance',
  description: 'The kill switch: freeze an agent or a whole group, at once, by any one admin.',
  schemas: { FreezeRequest, AgentFreezeResponse, GroupFreezeResponse },
  parameters: {},
  operations: {
    freezeAgent: {
      method: 'post',
      path: '/orchestrator/agents/{agent}/freeze',
      tag: 'governance',
      operationId: 'freezeAgent',
      headers: WRITE_HEADERS,
      summary: 'Freeze an agent: every spend of it is refused (`403 agent_frozen`), at once.',
      description: `${FREEZE_EFFECT} A revoked agent spends nothing: \`409 conflict\`. Any admin of the agent’s group: anyone else is \`403 forbidden\`, an unknown agent \`404 not_found\`.`,
      request: 'FreezeRequest',
      optionalBody: true,
      response: 'AgentFreezeResponse',
      errors: [...OWNER, 'conflict'],
    },
    freezeGroup: {
      method: 'post',
      path: '/orchestrator/groups/{group}/freeze',
      tag: 'governance',
      operationId: 'freezeGroup',
      headers: WRITE_HEADERS,
      summary: 'Freeze a group: every spend of every agent of it is refused (`403 group_frozen`), at once.',
      description: `${FREEZE_EFFECT} Any admin of the group: anyone else is \`403 forbidden\`, an unknown group \`404 not_found\`.`,
      request: 'FreezeRequest',
      optionalBody: true,
      response: 'GroupFreezeResponse',
      errors: OWNER,
    },
  },
});

export type FreezeRequest = Shape<typeof FreezeRequest>;
