import { ERROR_CATALOGUE } from '../errors';
import { openApiProblems } from '@tokenops/testing/openapi';
import { OPERATOR_CONTRACT, OPERATOR_OPERATIONS, operatorOpenApiDocument } from './operator-openapi';
import { VARIANT_CONTRACT } from './variant-openapi';
import { answerViolations, validate, type SchemaName } from './validator';

type Responses = Record<string, { content?: Record<string, { schema: unknown }> }>;
type Op = { security?: unknown; parameters?: { name: string; in: string }[]; responses: Responses };

/** A proposal's answer whose `result`, once executed, is `result`. */
const proposalOf = (result: string) => ({
  allOf: [
    { $ref: '#/components/schemas/Proposal' },
    {
      type: 'object',
      properties: {
        result: {
          anyOf: [{ $ref: `#/components/schemas/${result}` }, { type: 'null' }],
          description: expect.stringContaining('Once executed'),
        },
      },
    },
  ],
});

describe('the operator OpenAPI 3.1 document', () => {
  const doc = operatorOpenApiDocument();
  const operation = (method: string, path: string) =>
    (doc.paths[path] as Record<string, Op> | undefined)?.[method];

  it('is a valid OpenAPI 3.1 document, served under /api/v1', async () => {
    expect(await openApiProblems(doc)).toBe('');
    expect(doc.servers).toEqual([{ url: '/api/v1', 'x-internal': false }]);
  });

  it('is checked by a validator that refuses a broken one', async () => {
    const broken = JSON.parse(JSON.stringify(doc));
    broken.paths['/orchestrator/groups'].post.responses['201'].content['application/json'].schema = {
      $ref: '#/components/schemas/Nope',
    };
    expect(await openApiProblems(broken)).not.toBe('');
  });

  it('has one operation per entry of the table, each with its success answer and its path parameters', () => {
    for (const op of OPERATOR_OPERATIONS) {
      const o = operation(op.method, op.path)!;
      const schema = o.responses[String(op.status ?? 200)]?.content?.['application/json']?.schema;
      if (op.result && op.response === 'Proposal') expect(schema).toEqual(proposalOf(op.result));
      else expect(schema).toEqual({ $ref: `#/components/schemas/${op.response}` });
      const inPath = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect((o.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name)).toEqual(inPath);
    }
    const count = Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0);
    expect(count).toBe(OPERATOR_OPERATIONS.length);
  });

  it('asks for the operator token, the auditor token on the audit reads, none to sign in', () => {
    expect(doc.security).toEqual([{ operatorToken: [] }]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['operatorToken', 'auditorToken']);
    expect(operation('post', '/orchestrator/auth/token')!.security).toEqual([]);
    expect(operation('get', '/audit/groups/{group}/events')!.security).toEqual([
      { operatorToken: [] },
      { auditorToken: [] },
    ]);
    expect(operation('post', '/orchestrator/groups/{group}/auditors')!.security).toBeUndefined();
  });

  it('documents the proposal a widening change answers: 202 with the Proposal beside the change’s own answer', () => {
    const limits = operation('patch', '/orchestrator/agents/{agent}/limits')!.responses;
    expect(limits['200']!.content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/AgentLimitsResponse',
    });
    expect(limits['202']!.content!['application/json']!.schema).toEqual(proposalOf('AgentLimitsResponse'));
    const invite = operation('post', '/orchestrator/groups/{group}/invitations')!.responses;
    expect(Object.keys(invite)).not.toContain('201');
    expect(invite['202']!.content!['application/json']!.schema).toEqual(proposalOf('InvitationResponse'));
    // Lifting a freeze answers a proposal whose result is no named schema.
    expect(
      operation('post', '/orchestrator/groups/{group}/unfreeze')!.responses['202']!.content![
        'application/json'
      ]!.schema,
    ).toEqual({ $ref: '#/components/schemas/Proposal' });
  });

  it('lists, per status, the error codes each route answers in the error envelope', () => {
    const whitelist = operation('post', '/orchestrator/groups/{group}/whitelist')!.responses;
    expect(Object.keys(whitelist).sort()).toEqual([
      '202',
      '400',
      '401',
      '403',
      '404',
      '409',
      '429',
      '500',
      '503',
    ]);
    expect(whitelist['403']!.content!['application/json']!.schema).toEqual({
      allOf: [{ $ref: '#/components/schemas/ErrorBody' }, { properties: { error: { enum: ['forbidden'] } } }],
    });
    const challenge = operation('post', '/orchestrator/auth/challenge')!.responses;
    expect(Object.keys(challenge).sort()).toEqual(['200', '400', '429', '500', '503']);
  });

  it('declares a rate limit on every route: its headers on each answer but a 401, 429 with Retry-After', () => {
    const rateLimit = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
    for (const op of OPERATOR_OPERATIONS) {
      const responses = operation(op.method, op.path)!.responses as Record<
        string,
        { headers?: Record<string, { description: string }> }
      >;
      expect(Object.keys(responses)).toContain('429');
      expect(Object.keys(responses['429']!.headers ?? {})).toEqual([...rateLimit, 'Retry-After']);
      const success = responses[String(op.status ?? 200)]!.headers!;
      expect(Object.keys(success)).toEqual(expect.arrayContaining(rateLimit));
      const setting = !op.public
        ? 'OPERATOR_RATE_LIMIT_PER_MINUTE'
        : op.signIn
          ? 'SIGN_IN_RATE_LIMIT_PER_MINUTE'
          : 'PUBLIC_RATE_LIMIT_PER_MINUTE';
      expect(success['RateLimit-Limit']!.description).toContain(`(${setting})`);
      if (responses['401']) expect(Object.keys(responses['401'].headers ?? {})).toEqual(['WWW-Authenticate']);
    }
  });

  it('documents the freshness headers on the writes that wait for the agent views', () => {
    const headers = (method: string, path: string, status: string) =>
      Object.keys((operation(method, path)!.responses[status] as { headers?: object }).headers ?? {});
    const rateLimit = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
    expect(headers('post', '/orchestrator/agents/{agent}/revoke', '200')).toEqual([
      'X-Data-Stale',
      'X-Data-Position',
      'X-Data-Lag-Ms',
      ...rateLimit,
    ]);
    expect(headers('get', '/orchestrator/groups/{group}', '200')).toEqual(rateLimit);
  });

  it('names only schemas that compile in strict mode', () => {
    for (const name of Object.keys(doc.components.schemas)) {
      try {
        validate(name as SchemaName, {});
      } catch (err) {
        expect((err as { code?: string }).code).toMatch(/validation_error|invalid_amount/);
      }
    }
  });
});

describe('an answer checked against its operation', () => {
  const removed = { removed: '11111111111111111111111111111111' };
  const row = (id: string) => OPERATOR_OPERATIONS.find((op) => op.operationId === id)!;
  const violations = (id: string, status: number, body: unknown) =>
    answerViolations(row(id), OPERATOR_CONTRACT, status, body);

  it('passes the documented answer, status and code', () => {
    expect(violations('removeWhitelistEntry', 200, removed)).toEqual([]);
    const forbidden = { error: 'forbidden', message: ERROR_CATALOGUE.forbidden.message };
    expect(violations('getGroup', 403, forbidden)).toEqual([]);
  });

  it('refuses a body its schema does not describe, an undocumented status, an unlisted code', () => {
    expect(violations('removeWhitelistEntry', 200, { ...removed, x: 1 })).not.toEqual([]);
    expect(violations('getGroup', 202, {})).toEqual([
      { path: '', issue: 'status 202 is not documented for GET /orchestrator/groups/{group}' },
    ]);
    expect(violations('getGroup', 400, { error: 'invalid_amount', message: 'no' })).toEqual([
      {
        path: '/error',
        issue: 'invalid_amount is not documented for GET /orchestrator/groups/{group} (400)',
      },
    ]);
  });

  it('reads the code of an envelope that nests it, as the contract names it (the variant)', () => {
    const transfer = VARIANT_CONTRACT.operations.find((op) => op.operationId === 'transfer')!;
    const status = ERROR_CATALOGUE.insufficient_balance.status;
    const answer = (code: string) => ({ error: { code, message: 'no' } });
    expect(answerViolations(transfer, VARIANT_CONTRACT, status, answer('insufficient_funds'))).toEqual([]);
    expect(
      answerViolations(transfer, VARIANT_CONTRACT, status, answer('insufficient_balance')),
    ).toContainEqual({
      path: '/error',
      issue: `insufficient_balance is not documented for POST /transfer (${status})`,
    });
  });
});
