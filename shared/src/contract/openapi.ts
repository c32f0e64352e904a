/**
 * The OpenAPI 3.1 documents of the agent contract, assembled from the same schema constants the
 * validator compiles: one builder (`buildOpenApiDocument`) for the primary /api/v1 contract (here) and
 * the variant /v1 one (variant-openapi.ts). Served by the API and checked by an OpenAPI validator in a
 * test.
 */
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode, type ValidationDetail } from '../errors';
import { CONTRACT_SCHEMAS, IdempotencyKey, type ContractSchemaName } from './schemas';
import {
  PoolsResponse,
  TokensResponse,
  VenuesResponse,
  WebhookDeletedResponse,
  WebhookListResponse,
  WebhookSubscriptionView,
} from './operator-responses';
import { PathParams } from './operator-schemas';
import { responseViolations, type SchemaName } from './validator';

type Tag = 'onboarding' | 'intents' | 'state' | 'webhooks' | 'reference';

/** The agent document's schemas: the contract's, and those of the service's own reads for agents. */
export const AGENT_DOCUMENT_SCHEMAS = {
  ...CONTRACT_SCHEMAS,
  WebhookSubscriptionView,
  WebhookListResponse,
  WebhookDeletedResponse,
  TokensResponse,
  VenuesResponse,
  PoolsResponse,
  PathParams,
} as const;
export type AgentDocumentSchemaName = keyof typeof AGENT_DOCUMENT_SCHEMAS;

export interface Operation<Name extends string = ContractSchemaName, TagName extends string = Tag> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  tag: TagName;
  summary: string;
  operationId: string;
  request?: Name;
  /** The body may be left out (an empty object is the same). */
  optionalBody?: true;
  query?: Name;
  response: Name;
  /** The status of a success (200 when absent). */
  status?: 200 | 201 | 202;
  /** Other media types of a success, each with its schema (the JSON one is `response`). */
  alternatives?: Record<string, { schema: object; description?: string }>;
  /** The headers of a success (the state reads': VIEW_HEADERS, when absent). */
  headers?: Record<string, object>;
  /** The error codes it answers (every code of the catalogue when absent). */
  errors?: readonly ErrorCode[];
  /** Who may call it, when not the document's default scheme (`public` for nobody signed in). */
  security?: readonly Record<string, string[]>[];
  description?: string;
  idempotent?: true;
  public?: true;
}

/** What differs between the contracts' documents. */
export interface ContractDescription<Name extends string, TagName extends string = Tag> {
  title: string;
  /** What the API is (the agent contract's sentence when absent). */
  description?: string;
  serverUrl: string;
  operations: readonly Operation<Name, TagName>[];
  schemas: Record<Name, object>;
  /** The schema of every error body. */
  errorBody: Name;
  /** An error code as this contract names it. */
  codeName(code: ErrorCode): string;
  /** The idempotency-key header of the idempotent operations. */
  idempotencyHeader?: { required: boolean; schema: object; description: string };
  /** The schema whose properties are the path parameters (`{name}` in a path). */
  pathParameters?: Name;
  /** The tags (the agent contract's when absent). */
  tags?: readonly { name: TagName; description: string }[];
  /** The security schemes, the first the default (the agent's API key when absent). */
  securitySchemes?: Record<string, object>;
  /**
   * Whether a signed-in caller's answers carry the RateLimit headers (the agent's rate limit): then
   * every success and 4xx of an operation that takes the key declares them.
   */
  rateLimited?: true;
}

export const OPERATIONS: readonly Operation[] = [
  {
    method: 'post',
    path: '/register',
    tag: 'onboarding',
    operationId: 'register',
    summary: 'Exchange a one-time invitation code for an API key (shown once).',
    request: 'RegisterRequest',
    response: 'RegisterResponse',
    public: true,
  },
  {
    method: 'post',
    path: '/transfer',
    tag: 'intents',
    operationId: 'transfer',
    summary: 'Send tokens to an allow-listed recipient; a 0.10 % protocol fee is deducted.',
    request: 'TransferRequest',
    response: 'TransferResponse',
    idempotent: true,
  },
  {
    method: 'post',
    path: '/swap',
    tag: 'intents',
    operationId: 'swap',
    summary: 'Swap through the configured aggregator under the spend limits, with a minimum output.',
    request: 'SwapRequest',
    response: 'SwapResponse',
    idempotent: true,
  },
  {
    method: 'post',
    path: '/deposit',
    tag: 'intents',
    operationId: 'deposit',
    summary: 'Deposit into an allow-listed lending venue.',
    request: 'DepositRequest',
    response: 'DepositResponse',
    idempotent: true,
  },
  {
    method: 'post',
    path: '/withdraw',
    tag: 'intents',
    operationId: 'withdraw',
    summary: 'Withdraw from an allow-listed lending venue.',
    request: 'WithdrawRequest',
    response: 'WithdrawResponse',
    idempotent: true,
  },
  {
    method: 'post',
    path: '/intents/simulate',
    tag: 'intents',
    operationId: 'simulateTransfer',
    summary: 'Dry-run a transfer under the current limits; nothing is submitted.',
    request: 'SimulateRequest',
    response: 'SimulateResponse',
  },
  {
    method: 'post',
    path: '/x402/pay',
    tag: 'intents',
    operationId: 'payX402',
    summary:
      'Pay an HTTP resource that answers 402 (x402, scheme exact on Solana) as a transfer to its payTo, under the same limits; the answer carries the resource’s reply.',
    request: 'X402PayRequest',
    response: 'X402PayResponse',
    idempotent: true,
  },
  {
    method: 'get',
    path: '/balance',
    tag: 'state',
    operationId: 'getBalance',
    summary: 'Token balances and the limit counters.',
    response: 'BalanceResponse',
  },
  {
    method: 'get',
    path: '/limits',
    tag: 'state',
    operationId: 'getLimits',
    summary: 'Limits, remaining headroom and the group.',
    response: 'LimitsResponse',
  },
  {
    method: 'get',
    path: '/history',
    tag: 'state',
    operationId: 'getHistory',
    summary: 'The most recent confirmed intents of the last 24 hours, newest first.',
    query: 'HistoryQuery',
    response: 'HistoryResponse',
  },
  {
    method: 'post',
    path: '/webhooks',
    tag: 'webhooks',
    operationId: 'registerWebhook',
    summary: 'Subscribe an HTTPS URL to agent-scoped events; the signing secret is shown once.',
    request: 'WebhookRequest',
    response: 'WebhookResponse',
  },
];

/** Every route: a malformed request, an unexpected failure, a dependency down. */
export const REFERENCE_ERRORS: readonly ErrorCode[] = [
  'validation_error',
  'internal_error',
  'service_unavailable',
];
const SIGNED_IN_ERRORS: readonly ErrorCode[] = [...REFERENCE_ERRORS, 'unauthorized', 'rate_limited'];

/** The public reads of what a spend needs: in the agent's document and the operator's alike. */
export const REFERENCE_OPERATIONS: readonly Operation<
  'TokensResponse' | 'VenuesResponse' | 'PoolsResponse',
  'reference'
>[] = [
  {
    method: 'get',
    path: '/tokens',
    tag: 'reference',
    operationId: 'listTokens',
    summary: 'The tokens of the registry: symbol, mint, decimals (what from_mint, to_mint and mint take).',
    response: 'TokensResponse',
    errors: REFERENCE_ERRORS,
    public: true,
  },
  {
    method: 'get',
    path: '/venues',
    tag: 'reference',
    operationId: 'listVenues',
    summary: 'The lending venues (lending_program of deposit and withdraw), each with the mints it takes.',
    response: 'VenuesResponse',
    errors: REFERENCE_ERRORS,
    public: true,
  },
  {
    method: 'get',
    path: '/pools',
    tag: 'reference',
    operationId: 'listPools',
    summary: 'The swap aggregator and, on the local chain, its pools with their reserves.',
    response: 'PoolsResponse',
    errors: REFERENCE_ERRORS,
    public: true,
  },
];

/**
 * The service's own operations for agents, beyond the contract's ten: an agent lists and deletes its
 * webhooks, and reads what a spend needs (the tokens, the lending venues, the aggregator's pools).
 * Public reads answer without a key.
 */
export const AGENT_SERVICE_OPERATIONS: readonly Operation<AgentDocumentSchemaName>[] = [
  {
    method: 'get',
    path: '/webhooks',
    tag: 'webhooks',
    operationId: 'listWebhooks',
    summary: 'The agent’s own webhook subscriptions (never a secret).',
    response: 'WebhookListResponse',
    errors: SIGNED_IN_ERRORS,
  },
  {
    method: 'delete',
    path: '/webhooks/{webhook}',
    tag: 'webhooks',
    operationId: 'deleteWebhook',
    summary: 'Delete one of the agent’s webhook subscriptions; nothing more is sent to it.',
    response: 'WebhookDeletedResponse',
    errors: [...SIGNED_IN_ERRORS, 'not_found'],
  },
  ...REFERENCE_OPERATIONS,
];

/**
 * The headers of an answer drawn from the agent views (the state reads): whether the views included
 * the agent's own last write when it was answered. The bodies stay exactly the contract's.
 */
export const VIEW_HEADERS = {
  'X-Data-Stale': {
    description:
      '`false`: the answer includes the agent’s own last write. `true`: the views did not include it within VIEW_WAIT_MS (the projector is down or far behind); the answer is what they had. They catch up once it is back.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  'X-Data-Position': {
    description: 'On a stale answer: the log position the views include (opaque).',
    schema: { type: 'string' },
  },
  'X-Data-Lag-Ms': {
    description:
      'On a stale answer: the age of the views, in milliseconds: how long ago the oldest event of the log they have not applied was recorded (0 when they have applied it all).',
    schema: { type: 'integer', minimum: 0 },
  },
} as const;

/** The agent's rate limit (IETF draft RateLimit header fields), on every answer to a signed-in agent. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': {
    description: 'Requests the agent may make per window (RATE_LIMIT_PER_MINUTE).',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000_000 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000_000 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window frees a request.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 3600 },
  },
  'RateLimit-Policy': {
    description: 'The policy, e.g. `60;w=60` (60 requests a 60-second window).',
    schema: { type: 'string', maxLength: 64, pattern: '^[0-9]+;w=[0-9]+$' },
  },
} as const;

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86_400 },
  },
};

/**
 * Every 401 says how to authenticate (RFC 9110): a bearer credential, and no more (there is no OAuth
 * server); RFC 6750 §3.1's `invalid_token` when the request sent one that was not accepted.
 */
export const WWW_AUTHENTICATE = {
  'WWW-Authenticate': {
    description:
      'Send `Authorization: Bearer <credential>` (RFC 6750). `Bearer` when the request carried no bearer credential; `Bearer error="invalid_token"` when it carried one that is not accepted (unknown, malformed, revoked, rotated out or expired).',
    schema: { type: 'string', maxLength: 256, enum: ['Bearer', 'Bearer error="invalid_token"'] },
  },
};

const STATUS_MEANING: Record<number, string> = {
  400: 'Invalid input',
  401: 'Missing or invalid credential',
  403: 'Refused: a policy check, or not the caller’s resource',
  404: 'No such route or resource',
  409: 'Conflict with an operation in flight or the state',
  429: 'Rate limited; retry after Retry-After seconds',
  500: 'Unexpected failure',
  502: 'An upstream dependency failed',
  503: 'A dependency is unavailable; retry after Retry-After seconds',
};

/** Every status `codes` are answered with, and the codes it carries (as the contract names them). */
function errorStatuses(
  codeName: (code: ErrorCode) => string,
  codes: readonly ErrorCode[] = ERROR_CODES,
): Record<string, { description: string; codes: string[] }> {
  return Object.fromEntries(
    [...new Set(codes.map((c) => ERROR_CATALOGUE[c].status))]
      .sort((a, b) => a - b)
      .map((status) => {
        const names = ERROR_CODES.filter(
          (c) => codes.includes(c) && ERROR_CATALOGUE[c].status === status,
        ).map(codeName);
        return [
          String(status),
          { description: `${STATUS_MEANING[status] ?? 'Error'}: ${names.join(', ')}.`, codes: names },
        ];
      }),
  );
}

/** Every error code with its status, origin and (for the service's extensions) why it exists. */
export function errorCodesExtension(codeName: (code: ErrorCode) => string = (c) => c) {
  return ERROR_CODES.map((code) => {
    const e: { status: number; origin: string; message: string; why?: string } = ERROR_CATALOGUE[code];
    return {
      code: codeName(code),
      status: e.status,
      origin: e.origin,
      message: e.message,
      ...(e.why && { why: e.why }),
    };
  });
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });

function queryParameters(schemas: Record<string, object>, name: string) {
  const schema = schemas[name] as { properties: Record<string, object> };
  return Object.entries(schema.properties).map(([param, s]) => ({
    name: param,
    in: 'query',
    required: false,
    schema: s,
  }));
}

/** The path parameters of a path (`{name}`), each with its schema from the contract's path-parameter schema. */
function pathParameters(schemas: Record<string, object>, name: string | undefined, path: string) {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return [];
  const properties = name ? (schemas[name] as { properties: Record<string, object> }).properties : {};
  return names.map((param) => ({
    name: param,
    in: 'path',
    required: true,
    schema: properties[param] ?? { type: 'string' },
  }));
}

/** The error body of an operation that answers some codes only: the envelope, its code one of them. */
const errorContent = (errorBody: string, codes: string[] | undefined) =>
  codes
    ? {
        'application/json': {
          schema: { allOf: [ref(errorBody), { properties: { error: { enum: codes } } }] },
        },
      }
    : json(errorBody);

function operationObject<Name extends string, TagName extends string>(
  op: Operation<Name, TagName>,
  contract: ContractDescription<Name, TagName>,
) {
  const rateLimit = contract.rateLimited && !op.public ? RATE_LIMIT_HEADERS : {};
  const headersOf = (status: string) => ({
    ...(status.startsWith('4') && status !== '401' && rateLimit),
    ...((status === '429' || status === '503') && RETRY_AFTER),
    ...(status === '401' && WWW_AUTHENTICATE),
  });
  const errors = Object.fromEntries(
    Object.entries(errorStatuses(contract.codeName, op.errors)).map(([status, { description, codes }]) => {
      const headers = headersOf(status);
      return [
        status,
        {
          description,
          content: errorContent(contract.errorBody, op.errors && codes),
          ...(Object.keys(headers).length > 0 && { headers }),
        },
      ];
    }),
  );
  const header = contract.idempotencyHeader;
  const parameters = [
    ...pathParameters(contract.schemas, contract.pathParameters, op.path),
    ...(op.idempotent && header
      ? [
          {
            name: 'idempotency-key',
            in: 'header',
            required: header.required,
            schema: header.schema,
            description: header.description,
          },
        ]
      : []),
    ...(op.query ? queryParameters(contract.schemas, op.query) : []),
  ];
  const successHeaders = { ...(op.headers ?? (op.tag === 'state' ? VIEW_HEADERS : {})), ...rateLimit };
  const success = {
    description: op.status === 202 ? 'Accepted' : op.status === 201 ? 'Created' : 'OK',
    content: { ...json(op.response), ...op.alternatives },
    ...(Object.keys(successHeaders).length > 0 && { headers: successHeaders }),
  };
  return {
    tags: [op.tag],
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.public ? { security: [] } : op.security ? { security: op.security } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.request ? { requestBody: { required: !op.optionalBody, content: json(op.request) } } : {}),
    responses: { [String(op.status ?? 200)]: success, ...errors },
  };
}

const AGENT_TAGS = [
  { name: 'onboarding', description: 'Register with an invitation code.' },
  { name: 'intents', description: 'Transfer, swap, deposit, withdraw, simulate.' },
  { name: 'state', description: 'Balance, limits, history.' },
  { name: 'webhooks', description: 'Event subscriptions.' },
  { name: 'reference', description: 'What a spend needs: tokens, lending venues, pools (no key needed).' },
] as const;

/** The OpenAPI 3.1 document of one contract. */
export function buildOpenApiDocument<Name extends string, TagName extends string = Tag>(
  contract: ContractDescription<Name, TagName>,
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of contract.operations) (paths[op.path] ??= {})[op.method] = operationObject(op, contract);
  const securitySchemes = contract.securitySchemes ?? {
    bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key from register.' },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: contract.title,
      version: '1.0.0',
      description:
        contract.description ??
        'Autonomous agents move and convert tokens on Solana under limits an operator sets.',
    },
    // Not internal: every document describes an API the service serves to its callers.
    servers: [{ url: contract.serverUrl, 'x-internal': false }],
    tags: (contract.tags ?? AGENT_TAGS).map((t) => ({ name: t.name as string, description: t.description })),
    security: [{ [Object.keys(securitySchemes)[0]!]: [] as string[] }],
    paths,
    'x-error-codes': errorCodesExtension(contract.codeName),
    components: { securitySchemes, schemas: contract.schemas },
  };
}

/** The primary /api/v1 contract: its operations (the service's own for agents too), schemas and errors. */
export const AGENT_CONTRACT: ContractDescription<AgentDocumentSchemaName> = {
  title: 'Token operations: agent API',
  serverUrl: '/api/v1',
  operations: [...OPERATIONS, ...AGENT_SERVICE_OPERATIONS],
  schemas: AGENT_DOCUMENT_SCHEMAS,
  pathParameters: 'PathParams',
  rateLimited: true,
  errorBody: 'ErrorBody',
  codeName: (code) => code,
  idempotencyHeader: {
    required: false,
    schema: IdempotencyKey,
    description: 'Optional; when sent it must equal the body field idempotency_key.',
  },
};

/** The primary /api/v1 contract's document. */
export function openApiDocument(serverUrl = AGENT_CONTRACT.serverUrl) {
  return buildOpenApiDocument<AgentDocumentSchemaName>({ ...AGENT_CONTRACT, serverUrl });
}

/**
 * How an answer to an operation differs from what its row says: a status it does not list, a body its
 * schema refuses, an error code it does not list for that status (as the contract names its codes,
 * in its error body: `{"error": code}` or `{"error": {"code"}}`). Empty when it holds.
 */
export function answerViolations<Name extends string, TagName extends string>(
  op: Operation<Name, TagName>,
  contract: Pick<ContractDescription<Name, TagName>, 'errorBody' | 'codeName'>,
  status: number,
  body: unknown,
): ValidationDetail[] {
  const where = `${op.method.toUpperCase()} ${op.path}`;
  if (status === (op.status ?? 200)) return responseViolations(op.response as unknown as SchemaName, body);
  const codes = (op.errors ?? ERROR_CODES)
    .filter((c) => ERROR_CATALOGUE[c].status === status)
    .map(contract.codeName);
  if (codes.length === 0) return [{ path: '', issue: `status ${status} is not documented for ${where}` }];
  const found = responseViolations(contract.errorBody as unknown as SchemaName, body);
  const error = (body as { error?: unknown } | null)?.error;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : error;
  if (!codes.includes(code as string))
    found.push({ path: '/error', issue: `${String(code)} is not documented for ${where} (${status})` });
  return found;
}
