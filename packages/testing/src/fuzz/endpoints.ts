/**
 * What the fuzz suite sends requests to: every operation of the primary contract (from OPERATIONS
 * and the contract's schemas, so a new operation is fuzzed without a change here) and every route of
 * the operator surface (design.md), with the valid values of their path parameters and, where the
 * schema alone would rarely reach the domain (a recipient that is really allow-listed, a real
 * invitation code, a signed sign-in), realistic values taken from the running service.
 *
 * The schemas below describe the operator bodies as design.md documents them, for generating
 * requests only (the approvals' and the proposals' are the contract's own).
 */
import fc from 'fast-check';
import {
  AmountInput,
  ApprovalPolicyRequest,
  ApprovalsQuery,
  ApproveRequest,
  CancelProposalRequest,
  CONTRACT_SCHEMAS,
  GovernanceRequest,
  MemberRequest,
  Identifier,
  OPERATIONS,
  PolicyPreviewRequest,
  ProposalsQuery,
  RejectRequest,
  SignProposalRequest,
  UpdateGroupRequest,
  WebhookRequest,
} from '@tokenops/shared';
import { fromValue, str, type Json } from './json-text';
import type { Family } from './mutations';
import { charsOf, type Hints, type Schema } from './schema-arbitrary';

export interface Endpoint {
  surface: 'contract' | 'operator';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The route, parameters as `:name`, under the service root (`/api/v1/...`). */
  path: string;
  auth: 'agent' | 'operator' | 'none';
  /** The JSON body's schema; undefined when the endpoint reads no fields (the edge still parses a body). */
  body?: Schema;
  query?: Schema;
  idempotent: boolean;
  /** Valid values of each path parameter (the first the most useful one). */
  params: Record<string, string[]>;
  hints: Hints;
  /** Realistic valid bodies, every field present: three times as often as generated ones. */
  examples: Json[];
  /** Top-level fields of the examples replaced, each half the time, by these values. */
  vary: Hints;
  /**
   * A refusal of a well-formed request may be recorded: a spend refused after its idempotency key
   * was claimed keeps its answer under the key (replayed on retry; spec: policy.transfer_blocked
   * fires for each blocked attempt). Only ever under the request's own key and intent.
   */
  recordsRefusals: boolean;
}

export const nameOf = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method} ${e.path}`;

/**
 * The resources an x402 payment is asked of: addresses the SSRF guard refuses before connecting (a
 * private one, loopback not allowed, a name that does not resolve), so the fuzzer never sends a request
 * out of the machine; a valid URL of any other host would be requested.
 */
const X402_URLS = ['https://10.0.0.1/paid', 'https://127.0.0.9/paid', 'https://paid.invalid/report'];

/** A contract request's schema, as the fuzzer generates it (x402's url: one of X402_URLS). */
function bodySchema(name: keyof typeof CONTRACT_SCHEMAS): Schema {
  const schema = CONTRACT_SCHEMAS[name] as Schema;
  if (name !== 'X402PayRequest') return schema;
  const properties = (schema as { properties: Record<string, Schema> }).properties;
  return { ...schema, properties: { ...properties, url: { ...properties.url, enum: X402_URLS } } } as Schema;
}

/** Values from the running service that make generated requests reach the domain. */
export interface Fixtures {
  agentId: string;
  peerId: string;
  vendor: string;
  groupId: string;
  /** A group of another operator. */
  foreignGroupId: string;
  /** A type-1 allow-list entry of the group, to remove. */
  entryId: string;
  /** The type-0 entry of an agent of the group (removing it is refused). */
  agentEntryId: string;
  /** Registered agents of the group the operator endpoints act on (never the fuzzing agent). */
  limitsTarget: string;
  revokeTarget: string;
  invitationCodes: string[];
  signIn: { wallet: string; message: string; signature: string };
  mints: string[];
  /** Valid, unused addresses. */
  addresses: string[];
  /** A spend of the group held for approval (an agent's own approval_threshold), and its signed approval. */
  approval: { id: string; signature: string };
  /** An approval id of the right form that names no held spend. */
  unknownApprovalId: string;
}

const Label = { type: 'string', maxLength: 100 } as const;
const HourlyCap = { type: 'integer', minimum: 0, maximum: 10_000 } as const;
const LimitFields = {
  per_tx_limit: AmountInput,
  daily_limit: AmountInput,
  hourly_tx_cap: HourlyCap,
} as const;

export const OPERATOR_SCHEMAS = {
  Challenge: {
    type: 'object',
    properties: { wallet: Identifier },
    required: ['wallet'],
  },
  Token: {
    type: 'object',
    properties: {
      wallet: Identifier,
      message: { type: 'string', maxLength: 400 },
      signature: { type: 'string', minLength: 64, maxLength: 88, pattern: '^[1-9A-HJ-NP-Za-km-z]+$' },
    },
    required: ['wallet', 'message', 'signature'],
  },
  CreateGroup: {
    type: 'object',
    properties: { default_limits: { type: 'object', properties: LimitFields }, ...LimitFields },
  },
  WhitelistEntry: {
    type: 'object',
    properties: {
      address: Identifier,
      type: { enum: [1, 2] },
      label: Label,
      approved_amount: AmountInput,
      ttl_seconds: { type: 'integer', minimum: 1, maximum: 31_536_000 },
      daily_limit: { anyOf: [AmountInput, { type: 'null' }] },
    },
    required: ['address', 'type'],
  },
  WhitelistChange: {
    type: 'object',
    properties: { daily_limit: { anyOf: [AmountInput, { type: 'null' }] } },
    required: ['daily_limit'],
  },
  Invitation: { type: 'object', properties: { ...LimitFields, label: Label } },
  Limits: { type: 'object', properties: LimitFields },
  Airdrop: {
    type: 'object',
    properties: { to: Identifier, mint: Identifier, amount: AmountInput },
    required: ['to', 'amount'],
  },
  EmergencyWithdraw: { type: 'object', properties: { destination: Identifier } },
  Freeze: { type: 'object', properties: { reason: { type: 'string', maxLength: 200 } } },
} as const satisfies Record<string, Schema>;

export function endpoints(f: Fixtures): Endpoint[] {
  const oneOf = (values: string[]) => fc.constantFrom(...values).map(str);
  const hint = {
    // Another agent of the group, the allow-listed vendor, a valid address on no list.
    to: oneOf([f.peerId, f.vendor, f.addresses[3]!]),
    mint: oneOf(f.mints),
    // Mostly a fresh key (the request reaches the decision); sometimes one of a few fixed keys, so
    // that a request replays an earlier one or reuses its key with another body.
    idempotency_key: fc.oneof(
      { weight: 3, arbitrary: charsOf('[0-9a-z]', 12, 12).map((k) => str(`fz-${k}`)) },
      { weight: 1, arbitrary: oneOf(['fuzz-key-1', 'fuzz-key-2', 'fuzz-key-3']) },
    ),
    address: oneOf(f.addresses),
    wallet: oneOf(f.addresses),
  };
  const json = (value: unknown) => fromValue(value);
  const webhook = { url: 'https://93.184.215.14/hooks', event_types: ['transfer.confirmed'] };

  const contract = OPERATIONS.map((op): Endpoint => {
    const idempotent = op.idempotent === true;
    const examples: Record<string, unknown[]> = {
      '/register': f.invitationCodes.map((invitation_code) => ({ invitation_code })),
      '/transfer': [
        { to: f.peerId, amount: 1, idempotency_key: 'fuzz-key-1', memo: 'fuzz', task_id: 't-1' },
        { to: f.vendor, amount: '0.5', idempotency_key: 'fuzz-key-2', mint: f.mints[0] },
      ],
      '/swap': [
        {
          from_token: 'USDC',
          to_token: 'SOL',
          from_mint: f.mints[0],
          to_mint: f.mints[1] ?? f.mints[0],
          amount: 1,
          idempotency_key: 'fuzz-key-3',
          minimum_amount_out: 0.001,
          slippage_bps: 50,
        },
      ],
      '/deposit': [
        { amount: 1, lending_program: f.addresses[2], idempotency_key: 'fuzz-key-3', cpi_data: [1, 2] },
      ],
      '/withdraw': [{ amount: 1, lending_program: f.addresses[2], idempotency_key: 'fuzz-key-3' }],
      '/intents/simulate': [{ amount: 1, to: f.peerId, mint: f.mints[0] }],
      '/webhooks': [webhook],
      '/x402/pay': [
        { url: X402_URLS[0], max_amount: 1, idempotency_key: 'fuzz-key-1', method: 'POST', body: '{}' },
      ],
    };
    return {
      surface: 'contract',
      method: op.method.toUpperCase() as Endpoint['method'],
      path: `/api/v1${op.path}`,
      auth: op.public ? 'none' : 'agent',
      ...(op.request && { body: bodySchema(op.request) }),
      ...(op.query && { query: CONTRACT_SCHEMAS[op.query] as Schema }),
      idempotent,
      params: {},
      hints:
        op.path === '/register'
          ? ({} as Hints)
          : { to: hint.to, mint: hint.mint, idempotency_key: hint.idempotency_key },
      examples: (examples[op.path] ?? []).map(json),
      vary: idempotent ? { idempotency_key: hint.idempotency_key } : {},
      recordsRefusals: ['/transfer', '/swap', '/deposit', '/withdraw', '/x402/pay'].includes(op.path),
    };
  });

  const operator = (
    method: Endpoint['method'],
    path: string,
    more: Partial<Endpoint> & Pick<Endpoint, 'auth'>,
  ): Endpoint => ({
    surface: 'operator',
    method,
    path: `/api/v1${path}`,
    idempotent: false,
    params: {},
    hints: {},
    examples: [],
    vary: {},
    recordsRefusals: false,
    ...more,
  });
  const group = { group: [f.groupId, f.foreignGroupId] };
  const proposal = { proposal: [`${f.groupId}_00000000-0000-4000-8000-000000000000`] };
  const s = OPERATOR_SCHEMAS;
  const surface: Endpoint[] = [
    operator('POST', '/orchestrator/auth/challenge', {
      auth: 'none',
      body: s.Challenge,
      hints: { wallet: hint.wallet },
    }),
    operator('POST', '/orchestrator/auth/token', {
      auth: 'none',
      body: s.Token,
      examples: [json(f.signIn)],
    }),
    operator('POST', '/orchestrator/groups', {
      auth: 'operator',
      body: s.CreateGroup,
      examples: [
        json({ default_limits: { per_tx_limit: 5, daily_limit: 50, hourly_tx_cap: 3 } }),
        json({ per_tx_limit: '5.5', daily_limit: 50, hourly_tx_cap: 3 }),
      ],
    }),
    operator('GET', '/orchestrator/groups', { auth: 'operator' }),
    operator('GET', '/orchestrator/groups/:group', { auth: 'operator', params: group }),
    operator('GET', '/orchestrator/groups/:group/usage', { auth: 'operator', params: group }),
    operator('GET', '/orchestrator/groups/:group/spend', {
      auth: 'operator',
      params: group,
      query: { type: 'object', properties: { window: { type: 'string', enum: ['24h', '7d'] } } },
    }),
    operator('GET', '/orchestrator/groups/:group/events', {
      auth: 'operator',
      params: group,
      query: { type: 'object', properties: { since: { type: 'string', format: 'date-time' } } },
    }),
    // The approvals: after the spends are fuzzed (the contract's endpoints come first), so that a
    // policy the fuzzer sets holds none of them.
    operator('GET', '/orchestrator/groups/:group/approval-policy', { auth: 'operator', params: group }),
    operator('PUT', '/orchestrator/groups/:group/approval-policy', {
      auth: 'operator',
      params: group,
      body: ApprovalPolicyRequest as Schema,
      examples: [json({ threshold: null }), json({ threshold: '500', quorum: 1, ttl_seconds: 3_600 })],
    }),
    operator('POST', '/orchestrator/groups/:group/policy-preview', {
      auth: 'operator',
      params: group,
      body: PolicyPreviewRequest as Schema,
      examples: [json({ per_tx_limit: 1, approval_threshold: '0.5', whitelist_remove: [f.vendor] })],
    }),
    operator('GET', '/orchestrator/groups/:group/approvals', {
      auth: 'operator',
      params: group,
      query: ApprovalsQuery as Schema,
    }),
    operator('GET', '/orchestrator/approvals/:approval', {
      auth: 'operator',
      params: { approval: [f.approval.id, f.unknownApprovalId] },
    }),
    operator('POST', '/orchestrator/approvals/:approval/approve', {
      auth: 'operator',
      params: { approval: [f.approval.id, f.unknownApprovalId] },
      body: ApproveRequest as Schema,
      examples: [json({ signature: f.approval.signature })],
    }),
    operator('POST', '/orchestrator/approvals/:approval/reject', {
      auth: 'operator',
      params: { approval: [f.approval.id, f.unknownApprovalId] },
      body: RejectRequest as Schema,
      examples: [json({ reason: 'fuzz' })],
    }),
    operator('GET', '/orchestrator/groups/:group/reconciliation', {
      auth: 'operator',
      params: group,
      query: {
        type: 'object',
        properties: {
          from: { type: 'string', format: 'date-time' },
          to: { type: 'string', format: 'date-time' },
        },
      },
    }),
    operator('POST', '/orchestrator/groups/:group/whitelist', {
      auth: 'operator',
      params: group,
      body: s.WhitelistEntry,
      hints: { address: hint.address },
      vary: { address: hint.address },
      examples: [
        json({ address: f.addresses[0], type: 1, label: 'fuzz', approved_amount: 5, ttl_seconds: 3600 }),
        json({ address: f.addresses[1], type: 2, label: 'venue' }),
      ],
    }),
    operator('PATCH', '/orchestrator/groups/:group/whitelist/:entry', {
      auth: 'operator',
      params: { ...group, entry: [f.entryId, f.agentEntryId] },
      body: s.WhitelistChange,
      examples: [json({ daily_limit: 50 }), json({ daily_limit: null })],
    }),
    operator('DELETE', '/orchestrator/groups/:group/whitelist/:entry', {
      auth: 'operator',
      params: { ...group, entry: [f.entryId, f.agentEntryId] },
    }),
    operator('POST', '/orchestrator/groups/:group/invitations', {
      auth: 'operator',
      params: group,
      body: s.Invitation,
      examples: [json({ per_tx_limit: 1, daily_limit: 2, hourly_tx_cap: 3, label: 'fuzz' })],
    }),
    operator('PATCH', '/orchestrator/agents/:agent/limits', {
      auth: 'operator',
      params: { agent: [f.limitsTarget] },
      body: s.Limits,
      examples: [json({ per_tx_limit: 7, hourly_tx_cap: 9 })],
    }),
    operator('POST', '/orchestrator/agents/:agent/revoke', {
      auth: 'operator',
      params: { agent: [f.revokeTarget] },
    }),
    operator('POST', '/orchestrator/agents/:agent/rotate-key', {
      auth: 'operator',
      params: { agent: [f.limitsTarget] },
    }),
    operator('POST', '/orchestrator/groups/:group/webhooks', {
      auth: 'operator',
      params: group,
      body: WebhookRequest as Schema,
      examples: [json(webhook)],
    }),
    operator('POST', '/orchestrator/agents/:agent/emergency-withdraw', {
      auth: 'operator',
      params: { agent: [f.revokeTarget] },
      body: s.EmergencyWithdraw,
      examples: [json({ destination: f.addresses[3] })],
    }),
    // The kill switch: the revoked agent (409) and another wallet's group (403), so that no fuzzed
    // spend is refused for a freeze.
    operator('POST', '/orchestrator/agents/:agent/freeze', {
      auth: 'operator',
      params: { agent: [f.revokeTarget] },
      body: s.Freeze,
      examples: [json({ reason: 'fuzz' })],
    }),
    operator('POST', '/orchestrator/groups/:group/freeze', {
      auth: 'operator',
      params: { group: [f.foreignGroupId] },
      body: s.Freeze,
      examples: [json({})],
    }),
    // Proposals: lifting the revoked agent's freeze (409), another's group's (403); a proposal of the
    // group that does not exist (404), so nothing the fuzzer sends executes.
    operator('POST', '/orchestrator/agents/:agent/unfreeze', {
      auth: 'operator',
      params: { agent: [f.revokeTarget] },
    }),
    operator('POST', '/orchestrator/groups/:group/unfreeze', {
      auth: 'operator',
      params: { group: [f.foreignGroupId] },
    }),
    operator('GET', '/orchestrator/groups/:group/proposals', {
      auth: 'operator',
      params: group,
      query: ProposalsQuery as Schema,
    }),
    operator('GET', '/orchestrator/proposals/:proposal', { auth: 'operator', params: proposal }),
    operator('POST', '/orchestrator/proposals/:proposal/sign', {
      auth: 'operator',
      params: proposal,
      body: SignProposalRequest as Schema,
    }),
    operator('GET', '/orchestrator/proposals/:proposal/secret', { auth: 'operator', params: proposal }),
    operator('POST', '/orchestrator/proposals/:proposal/cancel', {
      auth: 'operator',
      params: proposal,
      body: CancelProposalRequest as Schema,
    }),
    // The group's name and defaults: a rise is a proposal left pending; a name is made at once.
    operator('PATCH', '/orchestrator/groups/:group', {
      auth: 'operator',
      params: group,
      body: UpdateGroupRequest as Schema,
      examples: [json({ name: 'fuzzed', description: 'a group the fuzzer renames' })],
    }),
    // Members and the governance policy: each change a proposal left pending (nobody signs it here).
    operator('GET', '/orchestrator/groups/:group/members', { auth: 'operator', params: group }),
    operator('POST', '/orchestrator/groups/:group/members', {
      auth: 'operator',
      params: group,
      body: MemberRequest as Schema,
      hints: { wallet: oneOf(f.addresses) },
      examples: [json({ wallet: f.addresses[2], role: 'viewer' })],
    }),
    operator('DELETE', '/orchestrator/groups/:group/members/:wallet', {
      auth: 'operator',
      params: { ...group, wallet: [f.addresses[2]!, ...f.addresses] },
    }),
    operator('GET', '/orchestrator/groups/:group/governance', { auth: 'operator', params: group }),
    operator('PUT', '/orchestrator/groups/:group/governance', {
      auth: 'operator',
      params: group,
      body: GovernanceRequest as Schema,
      examples: [json({ quorum: 1, delay_seconds: 60 })],
    }),
    operator('GET', '/tokens', { auth: 'none' }),
    operator('GET', '/venues', { auth: 'none' }),
    operator('GET', '/pools', { auth: 'none' }),
    operator('POST', '/dev/airdrop', {
      auth: 'operator',
      body: s.Airdrop,
      hints: { to: oneOf([f.peerId, ...f.addresses]), mint: hint.mint },
      examples: [json({ to: f.addresses[3], mint: f.mints[0], amount: 1 })],
    }),
  ];
  return [...contract, ...surface];
}

/** The mutation families that apply to an endpoint. */
export function familiesOf(e: Endpoint): Family[] {
  const path: Family[] = Object.keys(e.params).length > 0 ? ['path'] : [];
  if (e.method === 'GET') return [...path, 'query', 'headers'];
  if (e.method === 'DELETE') return [...path, 'headers'];
  const body: Family[] = e.body ? ['types', 'numbers', 'strings', 'bytes', 'keys'] : ['bytes', 'keys'];
  return [...body, ...path, 'headers'];
}
