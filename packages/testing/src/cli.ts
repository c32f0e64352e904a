/**
 * The operator CLI in the test's own process (no process to start: a run costs what its requests
 * cost), or as the process a user starts (`bin`), for the tests of the bin itself.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runCaptured, type Outcome } from '@tokenops/cli';

export { runCaptured };

/** Runs the CLI; rejects like a failed child process (with its code, stdout and stderr) unless it exits 0. */
export async function tokenops(...args: string[]): Promise<Outcome> {
  const outcome = await runCaptured(args);
  if (outcome.code !== 0)
    throw Object.assign(
      new Error(`tokenops ${args.join(' ')} exited ${outcome.code}: ${outcome.stderr}`),
      outcome,
    );
  return outcome;
}

/** The bin, as a process: rejects like `tokenops` when it exits non-zero. */
export const tokenopsProcess = (...args: string[]) =>
  promisify(execFile)(process.execPath, [require.resolve('@tokenops/cli/bin'), ...args], {
    env: { ...process.env, NODE_OPTIONS: '' },
  });
