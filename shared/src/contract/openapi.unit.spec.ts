import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS, openApiDocument } from './openapi';

/**
 * Validates a document with swagger-parser (OpenAPI 3.1 schema and semantics). It runs in a child
 * Node process: its ESM dependencies load there natively, not in Jest's CommonJS module loader.
 */
function openApiProblems(document: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const script =
    "require('@apidevtools/swagger-parser').validate(process.argv[1])" +
    '.then(() => process.exit(0), (e) => { process.stdout.write(e.message); process.exit(1); })';
  const run = spawnSync(process.execPath, ['-e', script, file], { encoding: 'utf8' });
  return run.status === 0 ? '' : run.stdout || run.stderr || 'failed';
}

describe('the OpenAPI 3.1 document', () => {
  const doc = openApiDocument();

  it('is a valid OpenAPI 3.1 document', () => {
    expect(openApiProblems(doc)).toBe('');
  });

  it('is checked by a validator that refuses a broken document', () => {
    const broken = JSON.parse(JSON.stringify(doc));
    delete broken.paths['/transfer'].post.responses['200'].description;
    broken.paths['/transfer'].post.requestBody.content['application/json'].schema = {
      $ref: '#/components/schemas/Nope',
    };
    expect(openApiProblems(broken)).not.toBe('');
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

  it('uses the tags onboarding, intents, state and webhooks', () => {
    expect(doc.tags.map((t) => t.name)).toEqual(['onboarding', 'intents', 'state', 'webhooks']);
  });
});
