import type { Config } from 'jest';
import { resolve } from 'node:path';
import { loadConfig } from 'tsconfig-paths';

// Tests sit beside the code; the suffix says what they need:
//   *.unit.spec.ts  nothing but the code
//   *.int.spec.ts   real servers (PostgreSQL, Redis) or real runtimes (LiteSVM)
//   *.e2e.spec.ts   the whole service over HTTP
const roots = [
  '<rootDir>/shared',
  '<rootDir>/services',
  '<rootDir>/projections',
  '<rootDir>/workers',
  '<rootDir>/packages',
];
// ts-jest transpiles each file alone (tsconfig's isolatedModules); `npm run typecheck` checks the types.
const transform: Config['transform'] = {
  '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
};

// The published packages' source, where their exports name their build: tsconfig.base.json's `paths`,
// which typecheck and ts-node (bin/workspace-paths.js) resolve too.
const paths = loadConfig(__dirname);
if (paths.resultType === 'failed') throw new Error(paths.message);
const moduleNameMapper: Config['moduleNameMapper'] = Object.fromEntries(
  Object.entries(paths.paths).map(([name, [target]]) => [
    `^${name}$`,
    resolve(paths.absoluteBaseUrl, target!),
  ]),
);

const project = (name: string, timeoutMs: number): NonNullable<Config['projects']>[number] => ({
  displayName: name,
  roots,
  testMatch: [`**/*.${name}.spec.ts`],
  transform,
  moduleNameMapper,
  testEnvironment: 'node',
  slowTestThreshold: timeoutMs / 1000,
});

// The agent end-to-end suite again, unchanged, on the server topology: separate processes (two API
// instances, two executors, a projector, the chain node) started once by the global setup; and the
// fault tests (*.topology.spec.ts), which start topologies of their own.
const topology: NonNullable<Config['projects']>[number] = {
  ...(project('e2e', 60_000) as object),
  displayName: 'topology',
  testMatch: ['**/*.e2e.spec.ts', '**/*.topology.spec.ts'],
  globals: { TOPOLOGY: true },
  globalSetup: '<rootDir>/packages/testing/src/topology-setup.ts',
  globalTeardown: '<rootDir>/packages/testing/src/topology-teardown.ts',
};

const config: Config = {
  projects: [project('unit', 5_000), project('int', 30_000), project('e2e', 60_000), topology],
  testTimeout: 60_000,
  // Suites run in a worker process that is replaced once it holds more than this after a suite: each
  // suite loads the service anew (Jest's module registry per file), and what a suite leaves reachable
  // grew one process past 4 GB over the e2e suites, its garbage collection slowing every later suite.
  workerIdleMemoryLimit: '800MB',
  // A passing run exits by itself (every suite closes what it opens); a failing test may leave a
  // connection or a spawned process's pipe open, and CI must then fail, not wait forever.
  forceExit: true,
};

export default config;
