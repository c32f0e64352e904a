import { ERROR_CATALOGUE, ERROR_CODES } from '../errors';
import { AGENT_SERVICE_OPERATIONS, OPERATIONS, openApiDocument } from './agent-openapi';
import { RATE_LIMIT_HEADERS } from './openapi';
import { openApiProblems } from '@tokenops/testing/openapi';

describe('the OpenAPI 3.1 document', () => {
  const doc = openApiDocument();

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(await openApiProblems(doc)).toBe('');
  });

  it('is checked by a validator that refuses a broken document', async () => {
    const broken = JSON.parse(JSON.stringify(doc));
    delete broken.paths['/transfer'].post.responses['200'].description;
    broken.paths['/transfer'].post.requestBody.content['application/json'].schema = {
      $ref: '#/components/schemas/Nope',
    };
    expect(await openApiProblems(broken)).not.toBe('');
  });

  it('has every primary path, tagged, with error bodies for 400, 401, 403, 409 and 502', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/balance',
        '/deposit',
        '/history',
        '/intents/simulate',
        '/limits',
        '/register',
        '/swap',
        '/transfer',
        '/webhooks',
        '/withdraw',
        // The service's own reads for agents: its webhooks, and what a spend needs.
        '/webhooks/{webhook}',
        '/tokens',
        '/venues',
        '/pools',
        // x402: paying an HTTP resource (docs/x402.md).
        '/x402/pay',
      ].sort(),
    );
    for (const op of OPERATIONS) {
      const o = (
        doc.paths[op.path] as Record<string, { tags: string[]; responses: Record<string, unknown> }>
      )[op.method]!;
      expect(o.tags).toEqual([op.tag]);
      for (const status of ['200', '400', '401', '403', '409', '502'])
        expect(o.responses).toHaveProperty(status);
    }
  });

  it('requires bearer auth everywhere except register', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    const register = (doc.paths['/register'] as { post: { security?: unknown[] } }).post;
    expect(register.security).toEqual([]);
    const transfer = (doc.paths['/transfer'] as { post: { security?: unknown[] } }).post;
    expect(transfer.security).toBeUndefined();
  });

  it('lists every error code the service can answer, per status, with why each extension exists', () => {
    const body = doc.components.schemas.ErrorBody as { properties: { error: { enum: string[] } } };
    expect(body.properties.error.enum).toEqual(ERROR_CODES);
    const transfer = (
      doc.paths['/transfer'] as { post: { responses: Record<string, { description: string }> } }
    ).post.responses;
    for (const code of ERROR_CODES) {
      const status = String(ERROR_CATALOGUE[code].status);
      expect(transfer[status]?.description).toContain(code);
    }
    const listed = doc['x-error-codes'];
    expect(listed.map((c) => c.code)).toEqual(ERROR_CODES);
    for (const c of listed) expect(Boolean(c.why)).toBe(c.origin === 'service');
  });

  it('documents the freshness headers on the state reads, and the rate limit on every answer', () => {
    const rateLimit = Object.keys(RATE_LIMIT_HEADERS);
    type Responses = Record<string, { headers?: Record<string, { description: string }> }>;
    for (const op of [...OPERATIONS, ...AGENT_SERVICE_OPERATIONS]) {
      const responses = (doc.paths[op.path] as Record<string, { responses: Responses }>)[op.method]!
        .responses;
      const success = responses[String(op.status ?? 200)]!;
      const views = op.tag === 'state' ? ['X-Data-Stale', 'X-Data-Position', 'X-Data-Lag-Ms'] : [];
      expect(Object.keys(success.headers ?? {})).toEqual([...views, ...rateLimit]);
      expect(Object.keys(responses['429']!.headers ?? {})).toEqual([...rateLimit, 'Retry-After']);
      // Which limit: the agent's, or the client address's of the public reads or of the sign-in routes.
      const setting = !op.public
        ? 'RATE_LIMIT_PER_MINUTE'
        : op.signIn
          ? 'SIGN_IN_RATE_LIMIT_PER_MINUTE'
          : 'PUBLIC_RATE_LIMIT_PER_MINUTE';
      expect(success.headers!['RateLimit-Limit']!.description).toContain(`(${setting})`);
    }
  });

  it('says on every 401 that the credential is a bearer one', () => {
    for (const op of [...OPERATIONS, ...AGENT_SERVICE_OPERATIONS].filter((o) => !o.public)) {
      const responses = (
        doc.paths[op.path] as Record<string, { responses: Record<string, { headers?: object }> }>
      )[op.method]!.responses;
      expect(Object.keys(responses['401']!.headers ?? {})).toEqual(['WWW-Authenticate']);
    }
  });

  it('uses the tags onboarding, intents, state, webhooks and reference', () => {
    expect(doc.tags.map((t) => t.name)).toEqual(['onboarding', 'intents', 'state', 'webhooks', 'reference']);
  });
});
