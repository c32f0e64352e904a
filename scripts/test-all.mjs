/**
 * `npm test` and `npm run test:all`: every Jest project, as two Jest processes side by side, one core each.
 *
 * Jest on a two-core machine runs one worker (cores - 1), so one run of every project keeps one core
 * busy and leaves the other nearly idle. The server topology's suites must run one at a time (they
 * share one chain node, whose books each suite checks: packages/testing/src/conservation.ts), and they are a
 * third of the time; the unit, int and e2e suites start what they need on free ports, fresh schemas
 * and key prefixes, so they can run beside them. Each process runs its suites one at a time.
 *
 * With `--checks` (what `npm test` passes), the checks (`npm run checks`: typecheck, lint, the
 * contracts' lint) run first on the unit, int and e2e side, while the topology's side starts: they
 * took a core for three minutes while the other waited. A failed check fails the run, and the unit,
 * int and e2e suites are then not run.
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
  { prefix: '', projects: ['unit', 'int', 'e2e'], node: process.env.TEST_NODE || process.execPath },
  { prefix: '[topology] ', projects: ['topology'], node: process.execPath },
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

/** The checks, on the Node and options a developer's `npm run checks` has (not the suites' NODE_OPTIONS). */
async function checks() {
  const { NODE_OPTIONS: _suites, ...env } = process.env;
  const code = await run('npm', ['run', '--silent', 'checks'], '', env);
  // The topology's side goes on to its end: stopped midway, its global teardown would not stop the
  // processes its setup started.
  if (code !== 0)
    process.stderr.write(`the checks failed (exit ${code}): the unit, int and e2e suites are not run\n`);
  return code;
}

const children = RUNS.map(async ({ prefix, projects, node }, i) => {
  if (withChecks && i === 0) {
    const code = await checks();
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
