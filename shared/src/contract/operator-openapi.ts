/**
 * The OpenAPI 3.1 document of the operator surface (served at /api/v1/orchestrator/openapi.json):
 * sign-in, groups, the allow-list, invitations, agents, fleet webhooks, auditors and the audit query,
 * reconciliation, the reference data and the local chain's airdrop. One table of operations, each
 * with the schemas that validate its request (operator-schemas.ts) and its answer
 * (operator-responses.ts) and the error codes it can answer, through the agent contract's builder
 * (openapi.ts). The same table registers the service's routes and checks their answers
 * (services/api/src/http/operations.ts).
 */
import type { ErrorCode } from '../errors';
import {
  REFERENCE_ERRORS,
  REFERENCE_OPERATIONS,
  VIEW_HEADERS,
  buildOpenApiDocument,
  type ContractDescription,
  type Operation,
} from './openapi';
import { OPERATOR_RESPONSE_SCHEMAS } from './operator-responses';
import { OPERATOR_SCHEMAS } from './operator-schemas';
import { ErrorBody, WebhookRequest, WebhookResponse } from './schemas';

const OPERATOR_DOCUMENT_SCHEMAS = {
  ...OPERATOR_SCHEMAS,
  ...OPERATOR_RESPONSE_SCHEMAS,
  WebhookRequest,
  WebhookResponse,
  ErrorBody,
} as const;
type OperatorSchemaName = keyof typeof OPERATOR_DOCUMENT_SCHEMAS;

type OperatorTag = 'sign-in' | 'groups' | 'agents' | 'approvals' | 'fleet webhooks' | 'audit' | 'reference';
export type OperatorOperation = Operation<OperatorSchemaName, OperatorTag>;

/** Where the operator surface is served. */
export const OPERATOR_SERVER_URL = '/api/v1';

/** Every route: a malformed request, an unexpected failure, a dependency down. */
const ANY = REFERENCE_ERRORS;
/** Routes that take the operator's token: missing or bad, and too many failures from one address. */
const SIGNED_IN: readonly ErrorCode[] = [...ANY, 'unauthorized', 'rate_limited'];
/** Routes on a group (or its agent, entry, subscription): someone else's, or none. */
const OWNER: readonly ErrorCode[] = [...SIGNED_IN, 'forbidden', 'not_found'];

/** The writes that answer once the agent views include them (or say they do not). */
const WRITE_HEADERS = {
  ...VIEW_HEADERS,
  'X-Data-Stale': {
    ...VIEW_HEADERS['X-Data-Stale'],
    description:
      '`false`: the agent views include this write (agents read it back at once). `true`: they did not within VIEW_WAIT_MS (the projector is down or far behind); the write is recorded and they catch up once it is back.',
  },
};

const READERS: readonly Record<string, string[]>[] = [{ operatorToken: [] }, { auditorToken: [] }];

export const OPERATOR_OPERATIONS: readonly OperatorOperation[] = [
  {
    method: 'post',
    path: '/orchestrator/auth/challenge',
    tag: 'sign-in',
    operationId: 'signInChallenge',
    summary: 'A text for the wallet to sign (ed25519), valid five minutes; nothing is stored.',
    request: 'ChallengeRequest',
    response: 'ChallengeResponse',
    errors: ANY,
    public: true,
  },
  {
    method: 'post',
    path: '/orchestrator/auth/token',
    tag: 'sign-in',
    operationId: 'signInToken',
    summary: 'Exchange a signed challenge (once) for a JWT valid one hour; auditors sign in the same way.',
    request: 'TokenRequest',
    response: 'TokenResponse',
    errors: [...ANY, 'unauthorized', 'rate_limited'],
    public: true,
  },
  {
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
  {
    method: 'get',
    path: '/orchestrator/groups',
    tag: 'groups',
    operationId: 'listGroups',
    summary: 'The groups the signed-in wallet owns (no one else’s), oldest first.',
    response: 'GroupListResponse',
    errors: SIGNED_IN,
  },
  {
    method: 'get',
    path: '/orchestrator/groups/{group}',
    tag: 'groups',
    operationId: 'getGroup',
    summary:
      'The group: default limits, agents with their status and limits, the allow-list with what each budget used and has left.',
    response: 'GroupResponse',
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/orchestrator/groups/{group}/reconciliation',
    tag: 'groups',
    operationId: 'reconcileGroup',
    summary:
      'Compare the log with the chain for every agent of the group: the discrepancies, none when clean.',
    description:
      'A window (from, to; both inclusive) limits the intents checked; balances are always compared as they are now (docs/audit.md).',
    query: 'ReconciliationQuery',
    response: 'ReconciliationResponse',
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/orchestrator/groups/{group}/usage',
    tag: 'groups',
    operationId: 'groupUsage',
    summary:
      'Each agent’s use of its limits now (spent today, operations this hour), balances, last activity.',
    response: 'GroupUsageResponse',
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/orchestrator/groups/{group}/spend',
    tag: 'groups',
    operationId: 'groupSpend',
    summary: 'Confirmed spends over the last 24 hours or 7 days, by agent and by recipient, from the log.',
    query: 'SpendQuery',
    response: 'SpendResponse',
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/orchestrator/groups/{group}/events',
    tag: 'groups',
    operationId: 'groupEvents',
    query: 'GroupEventsQuery',
    summary:
      'The group’s events as they happen: server-sent events from the log, resumable by Last-Event-ID.',
    description:
      'With Accept: text/event-stream: every event of the group after the one Last-Event-ID names (from the group’s first when absent; recorded since `since` when given), then each new one as it is logged, until the client goes, the operator’s token expires or the service stops. Each message: `id` the event’s position (a cursor), `event` its type, `data` an AuditEventView. A client that reconnects with the last id it saw misses nothing. Otherwise, JSON: one page of events after Last-Event-ID, as the audit query answers.',
    response: 'AuditEventsResponse',
    alternatives: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description: 'Server-sent events; each data line one AuditEventView (JSON).',
        },
      },
    },
    errors: OWNER,
  },
  {
    method: 'post',
    path: '/orchestrator/groups/{group}/whitelist',
    tag: 'groups',
    operationId: 'addWhitelistEntry',
    headers: WRITE_HEADERS,
    summary: 'Allow a recipient (type 1: with an approved amount and a lifetime) or a protocol (type 2).',
    request: 'WhitelistRequest',
    response: 'WhitelistEntryResponse',
    status: 201,
    errors: [...OWNER, 'invalid_amount', 'recipient_invalid', 'conflict'],
  },
  {
    method: 'delete',
    path: '/orchestrator/groups/{group}/whitelist/{entry}',
    tag: 'groups',
    operationId: 'removeWhitelistEntry',
    headers: WRITE_HEADERS,
    summary: 'Remove an allow-list entry (an agent of the group stays allowed: revoke it instead).',
    response: 'WhitelistRemovedResponse',
    errors: [...OWNER, 'conflict'],
  },
  {
    method: 'post',
    path: '/orchestrator/groups/{group}/invitations',
    tag: 'groups',
    operationId: 'inviteAgent',
    headers: WRITE_HEADERS,
    summary: 'Invite an agent: a wallet in custody, its limits, and a one-time code (shown once).',
    request: 'InvitationRequest',
    optionalBody: true,
    response: 'InvitationResponse',
    status: 201,
    errors: [...OWNER, 'invalid_amount', 'conflict'],
  },
  {
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
  {
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
  {
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
  {
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
  {
    method: 'post',
    path: '/orchestrator/groups/{group}/webhooks',
    tag: 'fleet webhooks',
    operationId: 'createFleetWebhook',
    summary: 'Subscribe an HTTPS URL to the events of every agent of the group; the secret is shown once.',
    request: 'WebhookRequest',
    response: 'WebhookResponse',
    status: 201,
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/orchestrator/groups/{group}/webhooks',
    tag: 'fleet webhooks',
    operationId: 'listWebhooks',
    summary: 'Every subscription of the group: its fleet webhooks and its agents’ own.',
    response: 'WebhookListResponse',
    errors: OWNER,
  },
  {
    method: 'delete',
    path: '/orchestrator/webhooks/{webhook}',
    tag: 'fleet webhooks',
    operationId: 'deleteWebhook',
    summary: 'Delete a subscription of one of the operator’s groups; nothing more is sent to it.',
    response: 'WebhookDeletedResponse',
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/orchestrator/webhooks/{webhook}/deliveries',
    tag: 'fleet webhooks',
    operationId: 'listDeliveries',
    summary: 'The delivery log of a subscription, newest first: each delivery with its attempts.',
    query: 'DeliveriesQuery',
    response: 'DeliveriesResponse',
    errors: OWNER,
  },
  {
    method: 'post',
    path: '/orchestrator/webhooks/{webhook}/redeliver',
    tag: 'fleet webhooks',
    operationId: 'redeliver',
    summary: 'Send one event (event_id) or every event since a time (since) to the subscription again.',
    request: 'RedeliverRequest',
    response: 'RedeliveryResponse',
    status: 202,
    errors: OWNER,
  },
  {
    method: 'post',
    path: '/orchestrator/webhooks/{webhook}/rotate-secret',
    tag: 'fleet webhooks',
    operationId: 'rotateWebhookSecret',
    summary: 'A new signing secret (shown once); the previous one signs too for grace_seconds.',
    request: 'RotateSecretRequest',
    optionalBody: true,
    response: 'RotateSecretResponse',
    errors: OWNER,
  },
  {
    method: 'put',
    path: '/orchestrator/groups/{group}/approval-policy',
    tag: 'approvals',
    operationId: 'setApprovalPolicy',
    headers: WRITE_HEADERS,
    summary:
      'Which spends wait for a person: above a threshold, or the first to each recipient; m of n approvers.',
    description:
      'Owner only. An agent’s own approval_threshold (its limits) overrides the group’s threshold. Withdrawals are never held.',
    request: 'ApprovalPolicyRequest',
    response: 'ApprovalPolicyResponse',
    errors: [...OWNER, 'invalid_amount'],
  },
  {
    method: 'post',
    path: '/orchestrator/groups/{group}/policy-preview',
    tag: 'approvals',
    operationId: 'previewPolicy',
    summary: 'What a proposed policy would have done to the group’s real spends of a window; writes nothing.',
    description:
      'Owner only. Replays the group’s log through the same decision functions with the proposal laid over the limits, the approval policy and the allow-list: each spend of the window judged on the state its real decision had.',
    request: 'PolicyPreviewRequest',
    response: 'PolicyPreviewResponse',
    errors: [...OWNER, 'invalid_amount'],
  },
  {
    method: 'get',
    path: '/orchestrator/groups/{group}/approvals',
    tag: 'approvals',
    operationId: 'listApprovals',
    summary: 'The group’s held spends, newest first, by status.',
    description: 'For the owner, the approvers and the auditors of the group.',
    query: 'ApprovalsQuery',
    response: 'ApprovalListResponse',
    security: READERS,
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/orchestrator/approvals/{approval}',
    tag: 'approvals',
    operationId: 'getApproval',
    summary: 'One held spend: its terms, the message approvers sign, who signed, its status.',
    security: READERS,
    response: 'Approval',
    errors: OWNER,
  },
  {
    method: 'post',
    path: '/orchestrator/approvals/{approval}/approve',
    tag: 'approvals',
    operationId: 'approveSpend',
    summary: 'Sign the approval’s message with the signed-in wallet; approved (and executed) at the quorum.',
    description:
      'The signature must be the signed-in wallet’s ed25519 signature (base58) of `message`; it is recorded in the log. The same approver twice counts once. conflict: decided already, or expired.',
    request: 'ApproveRequest',
    response: 'Approval',
    errors: [...OWNER, 'conflict'],
  },
  {
    method: 'post',
    path: '/orchestrator/approvals/{approval}/reject',
    tag: 'approvals',
    operationId: 'rejectSpend',
    summary: 'Any approver rejects the held spend: it fails, and what it reserved is released.',
    request: 'RejectRequest',
    optionalBody: true,
    response: 'Approval',
    errors: [...OWNER, 'conflict'],
  },
  {
    method: 'get',
    path: '/orchestrator/groups/{group}/auditors',
    tag: 'audit',
    operationId: 'listAuditors',
    summary: 'The wallets that may read the group’s log (the owner only).',
    response: 'AuditorListResponse',
    errors: OWNER,
  },
  {
    method: 'post',
    path: '/orchestrator/groups/{group}/auditors',
    tag: 'audit',
    operationId: 'grantAuditor',
    summary: 'Give a wallet read-only access to the group’s log (granting twice changes nothing).',
    request: 'AuditorRequest',
    response: 'AuditorsResponse',
    status: 201,
    errors: [...OWNER, 'conflict'],
  },
  {
    method: 'delete',
    path: '/orchestrator/groups/{group}/auditors',
    tag: 'audit',
    operationId: 'removeAuditor',
    summary:
      'Take an auditor’s access away (the wallet in the body); its token reads nothing of the group after.',
    request: 'AuditorRequest',
    response: 'AuditorsResponse',
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/audit/groups/{group}/events',
    tag: 'audit',
    operationId: 'auditEvents',
    summary: 'The group’s events in log order, filtered, a page after a cursor; or all of them as NDJSON.',
    description:
      'For the owner or an auditor of the group. With Accept: application/x-ndjson the answer streams one event (an AuditEvent) a line, from the cursor to the log’s head when the read began; cut short if the service stops meanwhile (read on with the last line’s `position` as the cursor).',
    query: 'AuditEventsQuery',
    response: 'AuditEventsResponse',
    alternatives: {
      'application/x-ndjson': {
        schema: { type: 'string', description: 'One AuditEvent (JSON) a line.' },
      },
    },
    security: READERS,
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/audit/groups/{group}/verification',
    tag: 'audit',
    operationId: 'verifyGroupLog',
    summary:
      'Check the hash chain of the group’s events: what no longer holds, the running digest, checkpoints.',
    description:
      'For the owner or an auditor of the group. Checkpoints kept from an earlier verification (?expect=) must give the same digest (docs/audit.md).',
    query: 'VerificationQuery',
    response: 'VerificationResponse',
    security: READERS,
    errors: OWNER,
  },
  {
    method: 'get',
    path: '/audit/intents/{intent}',
    tag: 'audit',
    operationId: 'intentStory',
    summary:
      'Everything about one intent: the decision, budget events, signature, outcome, webhook deliveries.',
    description: 'For the owner or an auditor of the intent’s group.',
    response: 'IntentStoryResponse',
    security: READERS,
    errors: OWNER,
  },
  ...REFERENCE_OPERATIONS,
  {
    method: 'post',
    path: '/dev/airdrop',
    tag: 'reference',
    operationId: 'airdrop',
    headers: WRITE_HEADERS,
    summary: 'Local chain only: mint demo tokens to an address, as an outside payer would.',
    description: 'For wallets that may create groups; not_found on any other chain.',
    request: 'AirdropRequest',
    response: 'AirdropResponse',
    errors: [
      ...SIGNED_IN,
      'forbidden',
      'not_found',
      'invalid_amount',
      'invalid_mint',
      'token_not_in_registry',
      'recipient_invalid',
    ],
  },
];

/** The operator surface: its operations, schemas, tags and security schemes. */
export const OPERATOR_CONTRACT: ContractDescription<OperatorSchemaName, OperatorTag> = {
  title: 'Token operations: operator API',
  description:
    'What an operator does: sign in with a wallet, run groups (limits, allow-list, invitations), act on agents (limits, revoke, rotate, emergency withdrawal), subscribe to the fleet’s events, grant auditors, read the audit log and reconcile it with the chain.',
  serverUrl: OPERATOR_SERVER_URL,
  operations: OPERATOR_OPERATIONS,
  schemas: OPERATOR_DOCUMENT_SCHEMAS,
  errorBody: 'ErrorBody',
  codeName: (code) => code,
  pathParameters: 'PathParams',
  tags: [
    { name: 'sign-in', description: 'A wallet signs a challenge and gets a JWT (operators and auditors).' },
    { name: 'groups', description: 'Groups, their allow-list, invitations and reconciliation.' },
    { name: 'agents', description: 'Limits, revocation, key rotation, the emergency withdrawal.' },
    {
      name: 'approvals',
      description:
        'Spends held for a person: the policy, the held spends, approving (by signing) and rejecting.',
    },
    {
      name: 'fleet webhooks',
      description:
        'A group’s subscriptions and their delivery logs (served under /v1 too, with the variant’s error envelope).',
    },
    { name: 'audit', description: 'Auditors, the audit query and the story of one intent.' },
    { name: 'reference', description: 'Tokens, venues, pools; the local chain’s airdrop.' },
  ],
  securitySchemes: {
    operatorToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'The JWT from POST /orchestrator/auth/token for the wallet that owns the group. Following RFC8725: HS256 only (verified with that one algorithm), an audience and a one-hour expiry, both checked.',
    },
    auditorToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'The JWT an auditor’s wallet gets from the same sign-in (issued and checked as operatorToken says, following RFC8725); it reads the audit routes of the groups it was granted, nothing else.',
    },
  },
};

/** The operator surface's OpenAPI 3.1 document. */
export function operatorOpenApiDocument(serverUrl = OPERATOR_SERVER_URL) {
  return buildOpenApiDocument<OperatorSchemaName, OperatorTag>({ ...OPERATOR_CONTRACT, serverUrl });
}
