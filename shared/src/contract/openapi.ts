/**
 * The OpenAPI 3.1 documents of the agent contract, assembled from the same schema constants the
 * validator compiles: one builder (`buildOpenApiDocument`) for the primary /api/v1 contract (here) and
 * the variant /v1 one (variant-openapi.ts). Served by the API and checked by an OpenAPI validator in a
 * test.
 */
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../errors';
import { CONTRACT_SCHEMAS, IdempotencyKey, type ContractSchemaName } from './schemas';

type Tag = 'onboarding' | 'intents' | 'state' | 'webhooks';

export interface Operation<Name extends string = ContractSchemaName> {
  method: 'get' | 'post';
  path: string;
  tag: Tag;
  summary: string;
  operationId: string;
  request?: Name;
  query?: Name;
  response: Name;
  idempotent?: true;
  public?: true;
}

/** What differs between the contracts' documents. */
export interface ContractDescription<Name extends string> {
  title: string;
  serverUrl: string;
  operations: readonly Operation<Name>[];
  schemas: Record<Name, object>;
  /** The schema of every error body. */
  errorBody: Name;
  /** An error code as this contract names it. */
  codeName(code: ErrorCode): string;
  /** The idempotency-key header of the idempotent operations. */
  idempotencyHeader: { required: boolean; schema: object; description: string };
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
      'On a stale answer: how long ago the write the views lack was recorded, in milliseconds (they are at least that far behind).',
    schema: { type: 'integer', minimum: 0 },
  },
} as const;

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

/** Every status the service answers errors with, and the codes it carries (as the contract names them). */
function errorStatuses(codeName: (code: ErrorCode) => string): Record<string, string> {
  return Object.fromEntries(
    [...new Set(ERROR_CODES.map((c) => ERROR_CATALOGUE[c].status))]
      .sort((a, b) => a - b)
      .map((status) => [
        String(status),
        `${STATUS_MEANING[status] ?? 'Error'}: ${ERROR_CODES.filter(
          (c) => ERROR_CATALOGUE[c].status === status,
        )
          .map(codeName)
          .join(', ')}.`,
      ]),
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

function operationObject<Name extends string>(op: Operation<Name>, contract: ContractDescription<Name>) {
  const errors = Object.fromEntries(
    Object.entries(errorStatuses(contract.codeName)).map(([status, description]) => [
      status,
      {
        description,
        content: json(contract.errorBody),
        ...(status === '429' || status === '503'
          ? { headers: { 'Retry-After': { schema: { type: 'integer' } } } }
          : {}),
      },
    ]),
  );
  const header = contract.idempotencyHeader;
  return {
    tags: [op.tag],
    operationId: op.operationId,
    summary: op.summary,
    ...(op.public ? { security: [] } : {}),
    ...(op.idempotent
      ? {
          parameters: [
            {
              name: 'idempotency-key',
              in: 'header',
              required: header.required,
              schema: header.schema,
              description: header.description,
            },
          ],
        }
      : {}),
    ...(op.query ? { parameters: queryParameters(contract.schemas, op.query) } : {}),
    ...(op.request ? { requestBody: { required: true, content: json(op.request) } } : {}),
    responses: {
      '200': {
        description: 'OK',
        content: json(op.response),
        ...(op.tag === 'state' && { headers: VIEW_HEADERS }),
      },
      ...errors,
    },
  };
}

/** The OpenAPI 3.1 document of one contract. */
export function buildOpenApiDocument<Name extends string>(contract: ContractDescription<Name>) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of contract.operations) (paths[op.path] ??= {})[op.method] = operationObject(op, contract);
  return {
    openapi: '3.1.0',
    info: {
      title: contract.title,
      version: '1.0.0',
      description: 'Autonomous agents move and convert tokens on Solana under limits an operator sets.',
    },
    servers: [{ url: contract.serverUrl }],
    tags: [
      { name: 'onboarding', description: 'Register with an invitation code.' },
      { name: 'intents', description: 'Transfer, swap, deposit, withdraw, simulate.' },
      { name: 'state', description: 'Balance, limits, history.' },
      { name: 'webhooks', description: 'Event subscriptions.' },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    'x-error-codes': errorCodesExtension(contract.codeName),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key from register.' },
      },
      schemas: contract.schemas,
    },
  };
}

/** The primary /api/v1 contract's document. */
export function openApiDocument(serverUrl = '/api/v1') {
  return buildOpenApiDocument<ContractSchemaName>({
    title: 'Token operations: agent API',
    serverUrl,
    operations: OPERATIONS,
    schemas: CONTRACT_SCHEMAS,
    errorBody: 'ErrorBody',
    codeName: (code) => code,
    idempotencyHeader: {
      required: false,
      schema: IdempotencyKey,
      description: 'Optional; when sent it must equal the body field idempotency_key.',
    },
  });
}
