import type { Config } from 'jest';
import config from './jest.config';

// The `unit` project of jest.config.ts on its own: what `jest --selectProjects unit` runs, for a tool that
// cannot select a project (StrykerJS's jest runner, see stryker.config.mjs).
const unit = config.projects?.find(
  (p): p is Exclude<typeof p, string> => typeof p === 'object' && p.displayName === 'unit',
);
if (!unit) throw new Error('jest.config.ts has no `unit` project');

export default { ...unit, rootDir: __dirname } satisfies Config;
