/**
 * The operator CLI in the test's own process (no process to start: a run costs what its requests
 * cost), or as the process a user starts (`bin`), for the tests of the bin itself.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Signer } from '@tokenops/shared';
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

/** A keypair file (solana-keygen's JSON of 64 numbers, mode 600) holding `wallet`, for the CLI's `--keypair`. */
export function keypairFile(wallet: Pick<Signer, 'seed' | 'publicKey'>, prefix = 'cli-'): string {
  const file = join(mkdtempSync(join(tmpdir(), prefix)), 'operator.json');
  writeFileSync(file, JSON.stringify([...wallet.seed, ...wallet.publicKey]), { mode: 0o600 });
  return file;
}
