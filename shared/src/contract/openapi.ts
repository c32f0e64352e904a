/**
 * The builder of the service's OpenAPI 3.1 documents (the agent's, agent-openapi.ts; the variant's,
 * variant-openapi.ts; the operator's, operator-openapi.ts): what a row of a contract says
 * (`Operation`), one tag of a contract said in one file (`contractTag`: its rows with the schemas they
 * name), and the document a contract's rows and schemas make. The same rows register the service's
 * routes and check their answers (services/api/src/http/operations.ts).
 */
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../errors';

export interface Operation<Name extends string = string, TagName extends string = string> {
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
  /**
   * The change widens what agents may spend when it does (governance): then the answer is `202` with
   * the proposal (the schema `Proposal`) instead of `status` with `response`.
   */
  proposes?: true;
  /**
   * A proposal's row (`proposes`, or a `Proposal` answered with `202`): the schema of the proposal's
   * `result` once it executed, the change's own answer.
   */
  result?: Name;
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
  /**
   * A public row of the sign-in routes (registration, a wallet's sign-in): counted against the
   * client address's limit of those (SIGN_IN_RATE_LIMIT_PER_MINUTE), not the public reads'.
   */
  signIn?: true;
}

/** A rate limit as a document names it: its setting, and whose requests it counts. */
export interface RateLimitDescription {
  setting: string;
  whose: string;
}

/** What differs between the contracts' documents. */
export interface ContractDescription<Name extends string, TagName extends string = string> {
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
  /** The tags, in the document's order. */
  tags: readonly { name: TagName; description: string }[];
  /** The security schemes, the first the default (the agent's API key when absent). */
  securitySchemes?: Record<string, object>;
  /**
   * The rate limit of a signed-in caller's requests (the agent's, the operator's): every success and
   * 4xx of an operation that takes the credential declares its RateLimit headers. A public row's are
   * the client address's (PUBLIC_LIMIT, SIGN_IN_LIMIT).
   */
  rateLimit: RateLimitDescription;
}

/**
 * One tag of a contract, said in one file: its name and description (the document's tag), its rows by
 * operation id, the schemas its rows name (by their names in the document; the service may name them
 * too, as it checks a streamed line), and the schemas of the path parameters its paths introduce.
 */
export interface ContractTag<
  TagName extends string = string,
  Schemas extends Record<string, object> = Record<string, object>,
  Rows extends Record<string, Operation<string, TagName>> = Record<string, Operation<string, TagName>>,
> {
  readonly name: TagName;
  readonly description: string;
  readonly schemas: Schemas;
  readonly operations: Rows;
  readonly parameters?: Record<string, object>;
}

/**
 * A tag of a contract. Each row is keyed by its operation id, carries the tag's name and names only
 * the tag's schemas: the types say so, and so does this check when the module loads.
 */
export function contractTag<
  const TagName extends string,
  Schemas extends Record<string, object>,
  Rows extends { [Id in keyof Rows]: Operation<keyof Schemas & string, TagName> & { operationId: Id } },
>(tag: {
  name: TagName;
  description: string;
  schemas: Schemas;
  operations: Rows;
  parameters?: Record<string, object>;
}): ContractTag<TagName, Schemas, Rows> {
  for (const [id, op] of Object.entries<Operation>(tag.operations)) {
    const named = [op.request, op.query, op.response, op.result].filter((n) => n !== undefined);
    const problems = [
      ...(op.operationId === id ? [] : [`keyed ${id}`]),
      ...(op.tag === tag.name ? [] : [`tagged ${op.tag}`]),
      ...named.filter((n) => !(n in tag.schemas)).map((n) => `names ${n}, not a schema of the tag`),
    ];
    if (problems.length > 0) throw new Error(`${tag.name}: ${op.operationId} ${problems.join(', ')}`);
  }
  return tag;
}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
/** The named schemas of every tag of a list, as one object. */
export type SchemasOf<Tags extends readonly ContractTag[]> = UnionToIntersection<Tags[number]['schemas']>;
/** The names of a list of tags. */
export type TagNameOf<Tags extends readonly ContractTag[]> = Tags[number]['name'];

/** Merges named schemas; a name given two different schemas is refused. */
function merged(parts: readonly Record<string, object>[], what: string): Record<string, object> {
  const all: Record<string, object> = {};
  for (const part of parts)
    for (const [name, schema] of Object.entries(part)) {
      if (all[name] !== undefined && all[name] !== schema) throw new Error(`${what} ${name} is said twice`);
      all[name] = schema;
    }
  return all;
}

/** The named schemas of every tag of a list (a schema two tags name is one). */
export const schemasOf = <const Tags extends readonly ContractTag[]>(tags: Tags): SchemasOf<Tags> =>
  merged(
    tags.map((t) => t.schemas),
    'the schema',
  ) as SchemasOf<Tags>;

/** The rows of every tag of a list, in order. */
export const operationsOf = <const Tags extends readonly ContractTag[]>(tags: Tags) =>
  tags.flatMap((t) => Object.values(t.operations)) as Operation<
    keyof SchemasOf<Tags> & string,
    TagNameOf<Tags>
  >[];

/** The document's tags (name and description) of a list. */
export const tagsOf = <const Tags extends readonly ContractTag[]>(tags: Tags) =>
  tags.map((t) => ({ name: t.name, description: t.description })) as {
    name: TagNameOf<Tags>;
    description: string;
  }[];

/** The schema whose properties are the path parameters of every tag of a list. */
export const pathParametersOf = (tags: readonly ContractTag[]) =>
  ({
    type: 'object',
    properties: merged(
      tags.map((t) => t.parameters ?? {}),
      'the path parameter',
    ),
  }) as const;

/** Every route: a malformed request, too many requests, an unexpected failure, a dependency down. */
export const REFERENCE_ERRORS: readonly ErrorCode[] = [
  'validation_error',
  'rate_limited',
  'internal_error',
  'service_unavailable',
];
/** Routes that take the caller's credential: missing or bad (too many failures from one address: 429). */
export const SIGNED_IN_ERRORS: readonly ErrorCode[] = [...REFERENCE_ERRORS, 'unauthorized'];

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

/** The agent's rate limit, per agent. */
export const AGENT_LIMIT: RateLimitDescription = { setting: 'RATE_LIMIT_PER_MINUTE', whose: 'the agent' };
/** The public reads' rate limit, per client address. */
export const PUBLIC_LIMIT: RateLimitDescription = {
  setting: 'PUBLIC_RATE_LIMIT_PER_MINUTE',
  whose: 'the client address',
};
/** The sign-in routes' rate limit (registration, a wallet's sign-in), per client address. */
export const SIGN_IN_LIMIT: RateLimitDescription = {
  setting: 'SIGN_IN_RATE_LIMIT_PER_MINUTE',
  whose: 'the client address',
};
/** The operator routes' rate limit, per signed-in wallet (an operator's, an auditor's). */
export const OPERATOR_LIMIT: RateLimitDescription = {
  setting: 'OPERATOR_RATE_LIMIT_PER_MINUTE',
  whose: 'the signed-in wallet',
};

/** A rate limit's headers (IETF draft RateLimit header fields), on every answer of a route it limits. */
export const rateLimitHeaders = (limit: RateLimitDescription) =>
  ({
    'RateLimit-Limit': {
      description: `Requests ${limit.whose} may make per window (${limit.setting}).`,
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
  }) as const;

/** The agent's rate limit's headers, on every answer to a signed-in agent. */
export const RATE_LIMIT_HEADERS = rateLimitHeaders(AGENT_LIMIT);

/** The limit a row's requests count against: the client address's for a public row, else the caller's. */
export const limitOf = (op: Operation, signedIn: RateLimitDescription): RateLimitDescription =>
  op.public ? (op.signIn ? SIGN_IN_LIMIT : PUBLIC_LIMIT) : signedIn;

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

/**
 * The document's components: every named schema a body, an answer or another component is (a query's
 * and the path parameters' schemas are spelled as the operations' parameters, so they are not
 * components). A schema named in the contract and held inside another (a list's entries) is that
 * component, referenced: one schema, said once in the document.
 */
function componentSchemas(contract: ContractDescription<string>): Record<string, object> {
  const parametersOnly = new Set<string>([
    ...contract.operations.flatMap((op) => (op.query ? [op.query] : [])),
    ...(contract.pathParameters ? [contract.pathParameters] : []),
  ]);
  for (const op of contract.operations) for (const n of [op.request, op.response]) parametersOnly.delete(n!);
  parametersOnly.delete(contract.errorBody);
  const kept = Object.entries(contract.schemas as Record<string, object>).filter(
    ([name]) => !parametersOnly.has(name),
  );
  // The first name of a schema is its component (two names may be one object, as deposit and withdraw).
  const names = new Map<object, string>();
  for (const [name, schema] of kept) if (!names.has(schema)) names.set(schema, name);
  return Object.fromEntries(kept.map(([name, schema]) => [name, referencing(schema, names)]));
}

/** A copy of a schema whose parts that are named components are references to them. */
function referencing(schema: object, names: Map<object, string>): object {
  const part = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const name = names.get(value);
    if (name !== undefined) return ref(name);
    return Array.isArray(value)
      ? value.map(part)
      : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, part(v)]));
  };
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, part(v)]));
}
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
  const rateLimit = rateLimitHeaders(limitOf(op, contract.rateLimit));
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
  // A proposal's answer names what its `result` is once it executed.
  const proposal = (): Record<string, unknown> => ({
    'application/json': {
      schema: op.result
        ? {
            allOf: [
              ref('Proposal'),
              {
                type: 'object',
                properties: {
                  result: {
                    anyOf: [ref(op.result), { type: 'null' }],
                    description:
                      'Once executed, the change’s answer (a secret it made, such as an invitation code, only in the answer to the signature that executed it); null until then.',
                  },
                },
              },
            ],
          }
        : ref('Proposal'),
    },
  });
  const success = {
    description: op.status === 202 ? 'Accepted' : op.status === 201 ? 'Created' : 'OK',
    content: { ...(op.response === 'Proposal' ? proposal() : json(op.response)), ...op.alternatives },
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
    responses: {
      [String(op.status ?? 200)]: success,
      ...(op.proposes && {
        '202': {
          description: 'Accepted: the change widens, so it is a proposal the group’s admins sign.',
          content: proposal(),
          ...(Object.keys(rateLimit).length > 0 && { headers: rateLimit }),
        },
      }),
      ...errors,
    },
  };
}

/** Who answers for the documents: the project's maintainers (it publishes no address of its own). */
const CONTACT = { name: 'Token operations maintainers' };
/** The license the packages are published under (their package.json), as an SPDX identifier. */
const LICENSE = { name: 'Apache-2.0', identifier: 'Apache-2.0' };

/** The OpenAPI 3.1 document of one contract. */
export function buildOpenApiDocument<Name extends string, TagName extends string = string>(
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
      contact: CONTACT,
      license: LICENSE,
    },
    // Not internal: every document describes an API the service serves to its callers.
    servers: [{ url: contract.serverUrl, 'x-internal': false }],
    tags: contract.tags.map((t) => ({ name: t.name as string, description: t.description })),
    security: [{ [Object.keys(securitySchemes)[0]!]: [] as string[] }],
    paths,
    'x-error-codes': errorCodesExtension(contract.codeName),
    components: { securitySchemes, schemas: componentSchemas(contract) },
  };
}
