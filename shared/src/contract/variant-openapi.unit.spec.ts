import { ServiceError } from '../errors';
import { validate } from './validator';
import { VARIANT_OPERATIONS, variantOpenApiDocument } from './variant-openapi';
import { VARIANT_SCHEMAS, variantErrorBody, type VariantSchemaName } from './variant-schemas';
import { RATE_LIMIT_HEADERS } from './openapi';
import { openApiProblems } from '@tokenops/testing/openapi';

const refusal = (name: VariantSchemaName, data: unknown): ServiceError => {
  try {
    validate(name, data);
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

describe('the variant OpenAPI 3.1 document', () => {
  const doc = variantOpenApiDocument();

  it('is a valid OpenAPI 3.1 document, served under /v1', async () => {
    expect(await openApiProblems(doc)).toBe('');
    expect(doc.servers).toEqual([{ url: '/v1', 'x-internal': false }]);
  });

  type Responses = Record<string, { content: { 'application/json': { schema: { $ref: string } } } }>;

  it('documents the freshness headers on its state reads (balance, limits, history)', () => {
    for (const path of ['/balance', '/limits', '/history'])
      expect(
        Object.keys(
          (doc.paths[path] as { get: { responses: { '200': { headers: object } } } }).get.responses['200']
            .headers,
        ),
      ).toEqual(['X-Data-Stale', 'X-Data-Position', 'X-Data-Lag-Ms', ...Object.keys(RATE_LIMIT_HEADERS)]);
  });

  it('has every variant path, each answering its schema and the variant error body', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/agents/register',
        '/balance',
        '/deposit',
        '/history',
        '/intents/simulate',
        '/limits',
        '/swap',
        '/transfer',
        '/webhooks',
        '/withdraw',
      ].sort(),
    );
    for (const op of VARIANT_OPERATIONS) {
      const o = (doc.paths[op.path] as Record<string, { responses: Responses }>)[op.method]!;
      expect(o.responses['200']!.content['application/json'].schema.$ref).toBe(
        `#/components/schemas/${op.response}`,
      );
      for (const status of ['400', '401', '403', '409', '429', '502'])
        expect(o.responses[status]!.content['application/json'].schema.$ref).toBe(
          '#/components/schemas/VariantErrorBody',
        );
    }
  });

  it('requires a UUID Idempotency-Key header on transfer, swap, deposit and withdraw', () => {
    for (const path of ['/transfer', '/swap', '/deposit', '/withdraw']) {
      const post = (doc.paths[path] as { post: { parameters: Record<string, unknown>[] } }).post;
      expect(post.parameters).toEqual([
        expect.objectContaining({
          name: 'idempotency-key',
          in: 'header',
          required: true,
          schema: expect.objectContaining({ format: 'uuid' }),
        }),
      ]);
    }
  });

  it('names the codes as the variant does', () => {
    const codes = doc['x-error-codes'].map((c) => c.code);
    expect(codes).toContain('hourly_freq_exceeded');
    expect(codes).toContain('insufficient_funds');
    expect(codes).not.toContain('hourly_cap_exceeded');
    expect(codes).not.toContain('insufficient_balance');
  });
});

describe('the variant schemas', () => {
  it('all compile under the strict validator', () => {
    for (const name of Object.keys(VARIANT_SCHEMAS) as VariantSchemaName[])
      expect(() => {
        try {
          validate(name, {});
        } catch (err) {
          if (!(err instanceof ServiceError)) throw err;
        }
      }).not.toThrow();
  });

  it('take a memo of 200 UTF-8 bytes and refuse one of 201', () => {
    const recipient = '11111111111111111111111111111111';
    expect(validate('VariantTransferRequest', { recipient, amount: 1, memo: 'é'.repeat(100) })).toBeTruthy();
    const err = refusal('VariantTransferRequest', { recipient, amount: 1, memo: `${'é'.repeat(100)}x` });
    expect(err.code).toBe('validation_error');
    expect(err.details).toEqual([{ path: '/memo', issue: 'must be at most 200 bytes in UTF-8' }]);
  });

  it('check a simulation by its type', () => {
    const recipient = '11111111111111111111111111111111';
    expect(validate('VariantSimulateRequest', { type: 'transfer', recipient, amount: 1 })).toBeTruthy();
    expect(refusal('VariantSimulateRequest', { type: 'swap', recipient, amount: 1 }).code).toBe(
      'validation_error',
    );
    expect(refusal('VariantSimulateRequest', { type: 'deposit', amount: 1 }).code).toBe('validation_error');
  });

  it('refuse a webhook secret shorter than 32 characters', () => {
    const body = { url: 'https://example.com/h', events: ['transfer.confirmed'] };
    expect(refusal('VariantWebhookRequest', { ...body, secret: 'x'.repeat(31) }).details).toEqual([
      { path: '/secret', issue: 'must NOT have fewer than 32 characters' },
    ]);
    expect(validate('VariantWebhookRequest', { ...body, secret: 'x'.repeat(32) })).toBeTruthy();
  });

  it('nest the error code, renamed where the variant names it otherwise', () => {
    expect(variantErrorBody(new ServiceError('hourly_cap_exceeded'))).toEqual({
      error: { code: 'hourly_freq_exceeded', message: expect.any(String) },
    });
    expect(
      variantErrorBody(new ServiceError('validation_error', 'bad', [{ path: '/a', issue: 'x' }])),
    ).toEqual({ error: { code: 'validation_error', message: 'bad', details: [{ path: '/a', issue: 'x' }] } });
  });
});
