import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '@tokenops/shared';

/**
 * The generator in a process of its own: openapi-typescript loads an ES module (parse-json) with
 * require(), which Node does and Jest's module system does not (so this file imports none of it).
 */
const regenerated = (): Record<string, string> =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', join(__dirname, '..', 'scripts', 'generate.ts'), '--stdout'],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    ),
  ) as Record<string, string>;

describe('the generated contract types', () => {
  const texts = regenerated();
  const text = texts['agent-api.ts']!;

  it.each(['agent-api.ts', 'operator-api.ts'])(
    '%s is what the served OpenAPI document gives now (else: npm run client:generate)',
    (file) => {
      expect(texts[file]).toEqual(expect.any(String));
      expect(readFileSync(join(__dirname, 'generated', file), 'utf8')).toBe(texts[file]);
    },
  );

  it('type every primary operation and every error code of the catalogue', () => {
    for (const op of ['register', 'transfer', 'swap', 'deposit', 'withdraw', 'simulateTransfer'])
      expect(text).toContain(`    ${op}: {`);
    for (const op of ['getBalance', 'getLimits', 'getHistory', 'registerWebhook'])
      expect(text).toContain(`    ${op}: {`);
    for (const code of ERROR_CODES) expect(text).toContain(`"${code}"`);
  });
});
