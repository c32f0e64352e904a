/**
 * The house's import rules bite: ESLint, with the repository's own configuration, refuses test support
 * in production files and imports into another package's src/, and lets tests use test support.
 */
import { ESLint } from 'eslint';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const eslint = new ESLint({ cwd: ROOT });

async function messages(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

it('refuses test support in a production file, and allows it in a spec', async () => {
  const code = "import { startWorld } from '@tokenops/testing/harness';\nexport const w = startWorld;\n";
  expect(await messages('services/api/src/http/example.ts', code)).toEqual([
    expect.stringMatching(/no-restricted-imports: .*Test support is for tests/),
  ]);
  expect(await messages('shared/src/application/example.ts', code)).toEqual([
    expect.stringMatching(/Test support is for tests/),
  ]);
  expect(await messages('services/api/src/http/example.e2e.spec.ts', code)).toEqual([]);
}, 60_000);

it("refuses an import into another package's src/, even from a spec", async () => {
  for (const spec of ['@tokenops/shared/src/errors', '../../../shared/src/errors'])
    expect(
      await messages(
        'services/api/src/http/example.unit.spec.ts',
        `import { ERROR_CODES } from '${spec}';\nexport const e = ERROR_CODES;\n`,
      ),
    ).toEqual([expect.stringMatching(/not from its src\//)]);
}, 60_000);

it('refuses adapters in the HTTP service outside its entry points', async () => {
  const code =
    "import { LocalAggregator } from '@tokenops/shared/adapters';\nexport const a = LocalAggregator;\n";
  expect(await messages('services/api/src/operator/example.ts', code)).toEqual([
    expect.stringMatching(/Routes talk to ports/),
  ]);
  expect(await messages('services/api/src/embedded.ts', code)).toEqual([]);
}, 60_000);
