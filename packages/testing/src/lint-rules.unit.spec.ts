/**
 * The house's import rules bite: ESLint, with the repository's own configuration, refuses test support
 * in production files and imports into another package's src/, and lets tests use test support; the
 * rooms' allow-lists (dependency-cruiser) refuse what they do not list.
 */
import { ESLint } from 'eslint';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

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

/**
 * The rooms' rules (.dependency-cruiser.cjs, `npm run lint:rooms`) over a small tree of their own:
 * each import below is one a rule must refuse, or one the rooms allow; the tree is cruised once, with
 * the repository's configuration, and every refusal must name its rule.
 */
describe("the rooms' allow-lists", () => {
  const files: Record<string, string> = {
    // What the rooms allow.
    'shared/src/money/index.ts': 'export const one = 1n;\n',
    'shared/src/errors/index.ts': 'export class ServiceError extends Error {}\n',
    'shared/src/chain/port.ts': 'export interface Chain { slot(): Promise<bigint> }\n',
    'shared/src/chain/transactions.ts':
      "import { createHash } from 'node:crypto';\nexport const h = createHash;\n",
    'shared/src/domain/rules.ts':
      "import { one } from '../money';\nimport { ServiceError } from '../errors';\nimport Big from 'big.js';\nexport const r = [one, ServiceError, Big];\n",
    'shared/src/application/use-case.ts':
      "import type { Chain } from '../chain/port';\nimport { h } from '../chain/transactions';\nimport { r } from '../domain/rules';\nexport const u = (c: Chain) => [c, h, r];\n",
    // What they refuse.
    'shared/src/event-store/postgres.ts': "import pg from 'pg';\nexport const store = pg;\n",
    'shared/src/domain/reads-the-chain.ts':
      "import type { Chain } from '../chain/port';\nexport type C = Chain;\n",
    'shared/src/domain/a-package.ts': "import { v4 } from 'uuid';\nexport const id = v4;\n",
    'shared/src/application/an-adapter.ts':
      "import { store } from '../event-store/postgres';\nexport const s = store;\n",
    'shared/src/application/a-client.ts': "import Redis from 'ioredis';\nexport const r = Redis;\n",
    'shared/src/chain/keys.ts': "import { readFileSync } from 'node:fs';\nexport const k = readFileSync;\n",
    'shared/src/process/env.ts': 'export const env = {};\n',
    'shared/src/process/ops.ts': 'export const ops = {};\n',
    'shared/src/queue/bullmq.ts': "import { env } from '../process/env';\nexport const q = env;\n",
    'shared/src/chain/rpc-node.ts':
      "import { ops } from '../process/ops';\nimport { env } from '../process/env';\nexport const n = [ops, env];\n",
    'shared/src/application/context.ts': 'export interface Context { now(): number }\n',
    'shared/src/application/spends/kind.ts':
      "import type { Context } from '../context';\nexport type SpendContext = Pick<Context, 'now'>;\n",
    'shared/src/application/spends/narrow.ts':
      "import type { SpendContext } from './kind';\nexport const n = (c: SpendContext) => c.now();\n",
    'shared/src/application/spends/wide.ts':
      "import type { Context } from '../context';\nexport const w = (c: Context) => c.now();\n",
    'shared/src/settings/catalogue.ts':
      "import { store } from '../event-store/postgres';\nexport const c = store;\n",
  };
  let violations: string[];

  beforeAll(() => {
    const tree = mkdtempSync(join(tmpdir(), 'rooms-'));
    for (const [file, code] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, file)), { recursive: true });
      writeFileSync(join(tree, file), code);
    }
    writeFileSync(
      join(tree, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { esModuleInterop: true } }),
    );
    writeFileSync(
      join(tree, '.dependency-cruiser.cjs'),
      `module.exports = require(${JSON.stringify(join(ROOT, '.dependency-cruiser.cjs'))});\n`,
    );
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    const cruised = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
        '--config',
        '.dependency-cruiser.cjs',
        '--output-type',
        'json',
        'shared/src',
      ],
      { cwd: tree, encoding: 'utf8' },
    );
    rmSync(tree, { recursive: true, force: true });
    const report = JSON.parse(cruised.stdout) as {
      summary: { violations: { from: string; to: string; rule: { name: string } }[] };
    };
    violations = report.summary.violations.map(
      (v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\/([^/]+)\/.*$/, '$1')}`,
    );
  }, 60_000);

  it('refuse, each by its rule, what is not on their lists; allow what is', () => {
    expect(violations.sort()).toEqual(
      [
        'domain-imports-rules-only: shared/src/domain/reads-the-chain.ts -> shared/src/chain/port.ts',
        'domain-imports-rules-only: shared/src/domain/a-package.ts -> uuid',
        'application-imports-ports-and-rules: shared/src/application/an-adapter.ts -> shared/src/event-store/postgres.ts',
        'application-imports-ports-and-rules: shared/src/application/a-client.ts -> ioredis',
        'pure-rooms-do-no-io: shared/src/application/a-client.ts -> ioredis',
        'pure-rooms-do-no-io: shared/src/chain/keys.ts -> fs',
        'only-the-roof-imports-process: shared/src/queue/bullmq.ts -> shared/src/process/env.ts',
        'the-chain-node-answers-ops-only: shared/src/chain/rpc-node.ts -> shared/src/process/env.ts',
        'settings-are-data: shared/src/settings/catalogue.ts -> shared/src/event-store/postgres.ts',
        'spend-kinds-take-a-narrow-context: shared/src/application/spends/wide.ts -> shared/src/application/context.ts',
      ].sort(),
    );
  });
});
