/**
 * Governance (docs/governance.md): the kill switch, and proposals. Any one admin freezes an agent or
 * its whole group at once; every spend is refused from then on (`agent_frozen`, `group_frozen`).
 * Lifting a freeze widens what agents may spend: the route answers 202 with a proposal, which executes
 * once a quorum of the group's admins has signed its message with their wallets.
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { Count, Identifier, Text, Timestamp, type Shape } from '../schemas';
import { NullableText, NullableTimestamp, OWNER, WRITE_HEADERS } from './common';

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

/** Lifting a freeze takes no input: an empty object, or no body. */
export const UnfreezeRequest = { type: 'object', additionalProperties: false } as const;

/** An admin's signature: its wallet's ed25519 signature (base58) of the proposal's `message`. */
export const SignProposalRequest = object({
  signature: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[1-9A-HJ-NP-Za-km-z]+$' },
});

export const CancelProposalRequest = object({ reason: { type: 'string', minLength: 1, maxLength: 200 } }, [
  'reason',
]);

/**
 * The changes a proposal makes, each one row of the service's table of governed actions
 * (application/proposals.ts), with the parameters it records.
 */
export const PROPOSAL_ACTIONS = [
  'group.unfreeze',
  'agent.unfreeze',
  'member.add',
  'member.remove',
  'governance.set',
  'allow_list.add',
  'allow_list.daily_limit',
  'agent.invite',
  'agent.limits',
  'approval_policy.set',
  'auditor.grant',
  'agent.emergency_withdraw',
  'agent.issue_key',
  'group.update',
  'webhook.register',
  'group.limits',
  'group.guard',
] as const;
export type ProposalAction = (typeof PROPOSAL_ACTIONS)[number];

const PROPOSAL_STATUSES = ['pending', 'ready', 'executed', 'cancelled', 'expired', 'failed'] as const;

export const ProposalsQuery = object({ status: { type: 'string', enum: PROPOSAL_STATUSES } }, ['status']);

export const Proposal = object({
  proposal_id: Text,
  group_config_pda: Identifier,
  action: { type: 'string', enum: PROPOSAL_ACTIONS, description: 'The change it makes.' },
  params: {
    type: 'object',
    description:
      'The change’s parameters, as its route took them: `agent.unfreeze` `{agent}`; `member.add` `{wallet, role}`; `member.remove` `{wallet}`; `governance.set`, `allow_list.add`, `approval_policy.set` the body given; `allow_list.daily_limit` `{entry, daily_limit}`; `agent.invite` `{limits?, label?}`; `agent.limits` `{agent, limits}`; `auditor.grant` `{wallet}`; `agent.emergency_withdraw` `{agent, destination?}`; `agent.issue_key` `{agent}`; `group.update` the body given; `webhook.register` `{url, event_types}`; `group.limits`, `group.guard` the body given.',
  },
  status: {
    type: 'string',
    enum: PROPOSAL_STATUSES,
    description:
      '`pending` until a quorum of admins signed; `ready` with it, until it executes (after the governance delay); then `executed`, or `cancelled`, `expired` (7 days), `failed` (it no longer applied).',
  },
  message: {
    type: 'string',
    description:
      'What each admin signs (UTF-8, ed25519): the group, the action, its parameters (canonical JSON), the proposal and its expiry.',
  },
  signatures_required: {
    ...Count,
    description: 'The quorum in force: distinct admins whose signatures it needs.',
  },
  signatures: {
    type: 'array',
    items: object({ wallet: Identifier, signed_at: Timestamp }),
    description: 'The admins who signed, in order.',
  },
  proposed_by: Identifier,
  created_at: Timestamp,
  expires_at: Timestamp,
  ready_at: { ...NullableTimestamp, description: 'When it executes; null until the quorum.' },
  result: { description: 'What the change answered once executed; null otherwise.' },
  reason: { ...NullableText, description: 'Why it was cancelled or failed; null otherwise.' },
});

/** The secrets a proposal's change made, for its proposer, once (today: an invitation's code). */
/** The secrets a proposal's change made, for its proposer, once (an invitation's code, an API key). */
export const ProposalSecretResponse = object(
  {
    proposal_id: Text,
    invitation_code: {
      ...Text,
      description: 'The invitation code an `agent.invite` made: the agent registers with it.',
    },
    api_key: {
      ...Text,
      description: 'The API key an `agent.issue_key` made: the agent uses it from now on.',
    },
  },
  ['invitation_code', 'api_key'],
);

export const ProposalListResponse = object({ proposals: { type: 'array', items: Proposal } });

const PROPOSAL_ID = {
  type: 'string',
  maxLength: 81,
  pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
} as const;

const PROPOSED =
  'Lifting a freeze widens what agents may spend, so it is not made here: the answer is `202` with the proposal, and nothing changes until a quorum of the group’s admins has signed its `message` (POST /orchestrator/proposals/{proposal}/sign). With the default governance (quorum 1, no delay) the proposer’s own signature executes it. Bad input is `400` and a change that does not apply (nothing is frozen) `409` at once: a proposal is only ever made of a valid change.';

const FREEZE_EFFECT =
  'Every spend decided from now on is refused, whichever API instance decides it; accepted intents not yet submitted fail and give their room back (an intent already submitted is the chain’s); held spends are rejected. Reads, webhooks and the log go on. Freezing again changes nothing but fails what is still open. Lifting a freeze widens what agents may spend: it is a proposal of the group’s admins, not this route.';

export const OPERATOR_GOVERNANCE = contractTag({
  name: 'governance',
  description: 'The kill switch: freeze an agent or a whole group, at once, by any one admin.',
  schemas: {
    FreezeRequest,
    AgentFreezeResponse,
    GroupFreezeResponse,
    UnfreezeRequest,
    Proposal,
    ProposalListResponse,
    ProposalsQuery,
    SignProposalRequest,
    CancelProposalRequest,
    ProposalSecretResponse,
  },
  parameters: { proposal: PROPOSAL_ID },
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
    unfreezeAgent: {
      method: 'post',
      path: '/orchestrator/agents/{agent}/unfreeze',
      tag: 'governance',
      operationId: 'unfreezeAgent',
      summary: 'Propose to lift an agent’s freeze (a proposal: `202`).',
      description: `${PROPOSED} Any admin of the agent’s group.`,
      request: 'UnfreezeRequest',
      optionalBody: true,
      response: 'Proposal',
      status: 202,
      errors: [...OWNER, 'conflict'],
    },
    unfreezeGroup: {
      method: 'post',
      path: '/orchestrator/groups/{group}/unfreeze',
      tag: 'governance',
      operationId: 'unfreezeGroup',
      summary: 'Propose to lift a group’s freeze (a proposal: `202`).',
      description: `${PROPOSED} Any admin of the group.`,
      request: 'UnfreezeRequest',
      optionalBody: true,
      response: 'Proposal',
      status: 202,
      errors: [...OWNER, 'conflict'],
    },
    listProposals: {
      method: 'get',
      path: '/orchestrator/groups/{group}/proposals',
      tag: 'governance',
      operationId: 'listProposals',
      summary: 'The group’s proposals, newest first, by status.',
      description: 'Any member of the group reads them; anyone else is `403 forbidden`.',
      query: 'ProposalsQuery',
      response: 'ProposalListResponse',
      errors: OWNER,
    },
    getProposal: {
      method: 'get',
      path: '/orchestrator/proposals/{proposal}',
      tag: 'governance',
      operationId: 'getProposal',
      summary: 'One proposal as it stands: its status, message, signatures and result.',
      description:
        'Any member of its group; anyone else is `403 forbidden`, an unknown proposal `404 not_found`.',
      response: 'Proposal',
      errors: OWNER,
    },
    signProposal: {
      method: 'post',
      path: '/orchestrator/proposals/{proposal}/sign',
      tag: 'governance',
      operationId: 'signProposal',
      headers: WRITE_HEADERS,
      summary: 'Sign a proposal’s message as an admin; the signature that makes the quorum executes it.',
      description:
        'The signature must be the signed-in admin’s own ed25519 signature (base58) of the proposal’s `message` (`400` otherwise); the same admin again counts once. Answered `200` with the proposal as it stands: executed, with its `result`, when this signature made the quorum and no delay applies. A proposal that is over is `409 conflict`. Only admins of the group: anyone else is `403 forbidden`.',
      request: 'SignProposalRequest',
      response: 'Proposal',
      errors: [...OWNER, 'conflict'],
    },
    getProposalSecret: {
      method: 'get',
      path: '/orchestrator/proposals/{proposal}/secret',
      tag: 'governance',
      operationId: 'getProposalSecret',
      summary: 'The secrets a delayed proposal made (an invitation code), for its proposer, once.',
      description:
        'When the service executed a proposal after its governance delay, the secrets its change made (an `agent.invite`’s invitation code) are shown to the admin who proposed it, once: a second read, a read of a proposal whose executing signature was shown them already, and anyone but its proposer are refused (`409 conflict`, `403 forbidden`). A proposal not executed is `409`; one whose change makes no secret `404`. The secrets are never in the log: they are made again from the proposal under the service’s key. Answered with `cache-control: no-store`.',
      response: 'ProposalSecretResponse',
      errors: [...OWNER, 'conflict'],
    },
    cancelProposal: {
      method: 'post',
      path: '/orchestrator/proposals/{proposal}/cancel',
      tag: 'governance',
      operationId: 'cancelProposal',
      summary: 'Cancel a pending or ready proposal (any one admin).',
      description:
        'A proposal that is over is `409 conflict`. Only admins of the group: anyone else is `403 forbidden`.',
      request: 'CancelProposalRequest',
      optionalBody: true,
      response: 'Proposal',
      errors: [...OWNER, 'conflict'],
    },
  },
});

export type FreezeRequest = Shape<typeof FreezeRequest>;
export type SignProposalRequest = Shape<typeof SignProposalRequest>;
export type CancelProposalRequest = Shape<typeof CancelProposalRequest>;
export type ProposalsQuery = Shape<typeof ProposalsQuery>;
