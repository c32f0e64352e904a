import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '@tokenops/shared';

/**
 * The generator in a process of its own: openapi-typescript loads an ES module (parse-json) with
 * require(), which Node does and Jest's module system does not (so this file imports none of it).
 */
const regenerated = (): string =>
  execFileSync(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(__dirname, '..', 'scripts', 'generate.ts'), '--stdout'],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );

describe('the generated contract types', () => {
  const text = regenerated();

  it('are what the served OpenAPI document gives now (else: npm run client:generate)', () => {
    expect(readFileSync(join(__dirname, 'generated', 'agent-api.ts'), 'utf8')).toBe(text);
  });

  it('type every primary operation and every error code of the catalogue', () => {
    for (const op of ['register', 'transfer', 'swap', 'deposit', 'withdraw', 'simulateTransfer'])
      expect(text).toContain(`    ${op}: {`);
    for (const op of ['getBalance', 'getLimits', 'getHistory', 'registerWebhook'])
      expect(text).toContain(`    ${op}: {`);
    for (const code of ERROR_CODES) expect(text).toContain(`"${code}"`);
  });
});
