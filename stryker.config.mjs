// @ts-check
/**
 * Mutation testing of the rules: `npm run test:mutation` (docs/testing.md). StrykerJS mutates the domain
 * and money code, runs the unit tests that cover each mutant, and fails below a 90 % score.
 *
 * Message text is not a rule: a test that pinned every sentence would break on every rewording and prove
 * nothing about money. The `message-text` ignorer below leaves exactly these literals unmutated (their
 * mutants are reported as Ignored, outside the score):
 *   - the message of `new ServiceError(code, message, details)` (the 2nd argument),
 *   - the message of `new Error(message)`,
 *   - the text of a validation detail's `issue` (its `path` stays mutated: callers match on it),
 *   - the `words` of a guard trip, the sentence for people beside its `figures` (which stay mutated),
 *   - the `why` of money's `invalid(field, why)`, which only builds a message, and the text of the guard
 *     parser's `issue(path, text)`, which builds a validation detail (its path stays mutated),
 * Everything else stays mutated, strings included: error codes, event types, stream names, labels,
 * defaults such as an agent's revocation reason.
 */
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

/** Callee name -> index of the argument that is only message text. */
const MESSAGE_ARGUMENT = { ServiceError: 1, Error: 0, invalid: 1, issue: 1 };
/** Object properties whose value is only message text: a validation detail's issue, a guard trip's words. */
const MESSAGE_PROPERTIES = new Set(['issue', 'words']);

/** @param {import('@babel/core').NodePath} path */
function isMessageText(path) {
  if (!path.isStringLiteral() && !path.isTemplateLiteral()) return false;
  const parent = path.parentPath;
  if (!parent) return false;
  if ((parent.isNewExpression() || parent.isCallExpression()) && path.listKey === 'arguments') {
    const callee = parent.node.callee;
    if (callee.type !== 'Identifier' || !Object.hasOwn(MESSAGE_ARGUMENT, callee.name)) return false;
    return MESSAGE_ARGUMENT[/** @type {keyof typeof MESSAGE_ARGUMENT} */ (callee.name)] === path.key;
  }
  if (parent.isObjectProperty() && path.key === 'value') {
    const key = parent.node.key;
    return key.type === 'Identifier' && MESSAGE_PROPERTIES.has(key.name);
  }
  return false;
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'message-text', {
    /** @param {import('@babel/core').NodePath} path */
    shouldIgnore: (path) =>
      isMessageText(path) ? 'Message text for people, not a rule (stryker.config.mjs)' : undefined,
  }),
];

// Every mutant re-runs all the tests that cover it (the jest runner cannot stop at the first failure), and
// the property tests cover nearly every rule: 50 generated cases each instead of 1000 keep a run near ten
// minutes. The example tests, not the property tests, are the ones meant to hold each rule.
process.env.PROPERTY_RUNS ??= '50';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  plugins: ['@stryker-mutator/jest-runner', '@stryker-mutator/typescript-checker', import.meta.url],
  mutate: ['shared/src/domain/**/*.ts', 'shared/src/money/**/*.ts', '!**/*.spec.ts'],
  ignorers: ['message-text'],
  testRunner: 'jest',
  // The unit tests only (`jest --selectProjects unit`): the jest runner cannot select a project itself.
  jest: { projectType: 'custom', configFile: 'jest.unit.config.ts', enableFindRelatedTests: true },
  coverageAnalysis: 'perTest',
  // A mutant that does not compile is no test's job: the TypeScript checker discards it first.
  // MUTATION_CHECKER=off: without it, for a long run on a file's own tests (docs/testing.md); a mutant
  // that does not compile then runs, and counts killed or survived by what it does.
  checkers: process.env.MUTATION_CHECKER === 'off' ? [] : ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // Two cores shared with others: one test runner, plus the checker.
  concurrency: 1,
  reporters: ['progress', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  thresholds: { high: 95, low: 90, break: 90 },
  timeoutMS: 10_000,
  tempDirName: '.stryker-tmp',
  // The docs and infra stay out but for what the unit tests hold equal to their catalogues: the two
  // tables, and the metrics named by operations.md and the sample alerts and dashboard.
  ignorePatterns: [
    '/infra/*',
    '!/infra/prometheus',
    '!/infra/grafana',
    '/bench',
    '/docs/*',
    '!/docs/errors.md',
    '!/docs/events.md',
    '!/docs/operations.md',
    '/data',
    '/scratch',
    '/coverage',
  ],
};
