import type { Config } from 'jest';
import { exports as sharedExports } from './shared/package.json';
import config from './jest.config';

// The `unit` project of jest.config.ts on its own: what `jest --selectProjects unit` runs, for a tool that
// cannot select a project (StrykerJS's jest runner, see stryker.config.mjs).
const unit = config.projects?.find(
  (p): p is Exclude<typeof p, string> => typeof p === 'object' && p.displayName === 'unit',
);
if (!unit) throw new Error('jest.config.ts has no `unit` project');

// `@tokenops/shared` resolved under this config's own root, by its exports map: Stryker runs the tests
// in a copy of the repository whose node_modules links the workspaces of the original, so test support
// (`@tokenops/testing`, a workspace) would import the original's `ServiceError` while the mutated code
// throws the copy's, and every `instanceof` between them would fail.
const moduleNameMapper = {
  ...unit.moduleNameMapper,
  ...Object.fromEntries(
    Object.entries(sharedExports).map(([subpath, file]) => [
      `^@tokenops/shared${subpath.slice(1).replace(/\./g, '\\.')}$`,
      `<rootDir>/shared/${file.slice(2)}`,
    ]),
  ),
};

// The tests of tools, which run ESLint and the client's generator over the repository's files, hold no
// rule of the domain, and cannot run in Stryker's copy (ESLint loads its config by a dynamic import; the
// generator runs in a process of its own, outside the copy's module mapping).
const testPathIgnorePatterns = [
  '/packages/testing/src/lint-rules\\.unit\\.spec\\.ts$',
  '/packages/client/src/generate\\.unit\\.spec\\.ts$',
];

// MUTATION_TESTS (comma-separated globs under the root) narrows the run to a file's own tests: a file
// every unit test covers (the guard's history, folded with every agent) would otherwise run them all
// for each of its mutants (docs/testing.md).
const only = process.env.MUTATION_TESTS?.split(',').map((glob) => `<rootDir>/${glob.trim()}`);

export default {
  ...unit,
  rootDir: __dirname,
  moduleNameMapper,
  testPathIgnorePatterns,
  ...(only && { testMatch: only }),
} satisfies Config;
