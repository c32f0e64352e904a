/**
 * `npm test` and `npm run test:all`: every Jest project, as two Jest processes side by side, one core each.
 *
 * Jest on a two-core machine runs one worker (cores - 1), so one run of every project keeps one core
 * busy and leaves the other nearly idle. The server topology's suites must run one at a time (they
 * share one chain node, whose books each suite checks: packages/testing/src/conservation.ts), and they are a
 * third of the time; the unit, int and e2e suites start what they need on free ports, fresh schemas
 * and key prefixes, so they can run beside them. Each process runs its suites one at a time.
 *
 * With `--checks` (what `npm test` passes), the checks of `npm run checks` run first, split between
 * the sides so that both end about together: the lint (ESLint, Prettier, cycles) before the unit,
 * int and e2e suites, the typecheck and the contracts' lint before the topology's suites. (Run before
 * either side, they took a core for three minutes while the other waited; all before the unit, int
 * and e2e suites, they made that side the longer one, by about three minutes in November 2026.) A failed check fails the run,
 * and the suites of its side are then not run.
 *
 * The topology's lines are prefixed `[topology]`; the exit code is the first failure's, else 0.
 * With TEST_NODE set (a path to a node binary), the unit, int and e2e suites run on that Node.
 * Other arguments are passed to both Jest processes (e.g. `-t name`).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const JEST = join(import.meta.dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
// TEST_NODE: another Node binary for the unit, int and e2e suites (CI runs them on Node 24 there,
// while the topology's, the e2e suite again among them, run on this Node).
const RUNS = [
  {
    prefix: '',
    projects: ['unit', 'int', 'e2e'],
    node: process.env.TEST_NODE || process.execPath,
    checks: ['lint'],
  },
  {
    prefix: '[topology] ',
    projects: ['topology'],
    node: process.execPath,
    checks: ['typecheck', 'lint:contracts'],
  },
];

const args = process.argv.slice(2).filter((a) => a !== '--checks');
const withChecks = process.argv.includes('--checks');

const processes = [];
/** Runs a command with its lines prefixed; resolves with its exit code. */
function run(command, commandArgs, prefix, env = process.env) {
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], env });
  processes.push(child);
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ])
    createInterface({ input: from }).on('line', (line) => to.write(`${prefix}${line}\n`));
  return new Promise((done) => child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0))));
}

/**
 * Checks (npm scripts, one after the other), on the Node and options a developer's `npm run checks`
 * has (not the suites' NODE_OPTIONS); the first that fails ends them.
 */
async function checks(scripts, prefix) {
  const { NODE_OPTIONS: _suites, ...env } = process.env;
  for (const script of scripts) {
    const code = await run('npm', ['run', '--silent', script], prefix, env);
    if (code !== 0) {
      process.stderr.write(
        `${prefix}the check ${script} failed (exit ${code}): this side's suites are not run\n`,
      );
      return code;
    }
  }
  return 0;
}

const children = RUNS.map(async ({ prefix, projects, node, checks: scripts }) => {
  if (withChecks) {
    const code = await checks(scripts, prefix);
    if (code !== 0) return code;
  }
  return run(node, [JEST, '--selectProjects', ...projects, ...args], prefix);
});

for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    for (const child of processes) child.kill(signal);
  });

const codes = await Promise.all(children);
process.exitCode = codes.find((code) => code !== 0) ?? 0;
