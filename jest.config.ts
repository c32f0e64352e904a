import type { Config } from 'jest';

// Tests sit beside the code; the suffix says what they need:
//   *.unit.spec.ts  nothing but the code
//   *.int.spec.ts   real servers (PostgreSQL, Redis) or real runtimes (LiteSVM)
//   *.e2e.spec.ts   the whole service over HTTP
const roots = ['<rootDir>/shared', '<rootDir>/services', '<rootDir>/projections', '<rootDir>/workers'];
// ts-jest transpiles each file alone (isolatedModules); `npm run typecheck` checks the types.
const transform: Config['transform'] = {
  '^.+\\.ts$': ['ts-jest', { isolatedModules: true, diagnostics: false }],
};

const project = (name: string, timeoutMs: number): NonNullable<Config['projects']>[number] => ({
  displayName: name,
  roots,
  testMatch: [`**/*.${name}.spec.ts`],
  transform,
  testEnvironment: 'node',
  slowTestThreshold: timeoutMs / 1000,
});

const config: Config = {
  projects: [project('unit', 5_000), project('int', 30_000), project('e2e', 60_000)],
  testTimeout: 60_000,
};

export default config;
