/**
 * What every command of the CLI builds on: the global options, signing in with a keypair file (the
 * Solana CLI's JSON format: 64 bytes, seed then public key) for an operator client (@tokenops/client,
 * generated from the operator OpenAPI document: the paths are its, not the CLI's), and printing the
 * answers (`--json` prints them as they are). Commands get it as a `Cli`.
 */
import bs58 from 'bs58';
import { existsSync, readFileSync } from 'node:fs';
import { OperatorClient, isTokenOpsError } from '@tokenops/client';
import { signerFromSeed, type Signer } from '@tokenops/shared';

export interface Global {
  url: string;
  keypair: string;
  json?: boolean;
}

function loadKeypair(file: string): Signer {
  if (!existsSync(file))
    throw new Error(`no keypair file ${file} (create one with: tokenops keygen ${file})`);
  const bytes = JSON.parse(readFileSync(file, 'utf8')) as number[];
  if (!Array.isArray(bytes) || bytes.length !== 64)
    throw new Error(`${file} is not a keypair file (a JSON array of 64 numbers)`);
  const signer = signerFromSeed(new Uint8Array(bytes.slice(0, 32)));
  if (bs58.encode(new Uint8Array(bytes.slice(32))) !== signer.address)
    throw new Error(`${file}: the public key does not match the seed`);
  return signer;
}

/**
 * What went wrong, in one line: the service's refusal (status, code, message and the failing fields),
 * or, when nothing answered, which URL was tried, why, and how to point the CLI elsewhere.
 */
export function describeFailure(err: unknown, url: string): string {
  if (!isTokenOpsError(err)) return err instanceof Error ? err.message : String(err);
  if (err.code === 'network_error') {
    // fetch's TypeError ("fetch failed") carries the socket's error as its cause.
    const socket =
      err.cause instanceof Error && err.cause.cause instanceof Error ? err.cause.cause : err.cause;
    const why = socket instanceof Error ? socket.message || socket.name : String(socket);
    return (
      `cannot reach the service at ${url} (${why}). Is it running there? ` +
      'Point the CLI at it with --url <url> or the TOKENOPS_URL environment variable.'
    );
  }
  const details = (err.details ?? []).map((d) => `${d.path}: ${d.issue}`).join('; ');
  return `${err.status} ${err.code}: ${err.message}` + (details && ` (${details})`);
}

/** Signs in with the keypair file: the operator client, with the wallet's token. */
const signIn = (g: Global): Promise<OperatorClient> => {
  const wallet = loadKeypair(g.keypair);
  return OperatorClient.signIn(g.url, { address: wallet.address, sign: (message) => wallet.sign(message) });
};

/** An answer for people: `key: value` lines, nested objects indented. */
export function plain(answer: unknown): string {
  const lines = (value: unknown, indent = ''): string[] =>
    value !== null && typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
          v !== null && typeof v === 'object'
            ? [`${indent}${k}:`, ...lines(v, `${indent}  `)]
            : [`${indent}${k}: ${String(v)}`],
        )
      : [`${indent}${String(value)}`];
  return lines(answer).join('\n');
}

/** Where a run of the CLI writes: its answers, its progress and errors, and its exit code. */
export interface Io {
  /** Writes a line of the answer (stdout). */
  out(line: string): void;
  /** Progress and errors (stderr): a stream, as a progress bar takes one. */
  err: NodeJS.WritableStream;
  /** 1 once a command found something wrong (a broken log, a discrepancy); else 0. */
  exitCode: number;
}

/** The process's own stdout, stderr and exit code. */
export const processIo = (): Io => ({
  out: (line) => console.log(line),
  err: process.stderr,
  get exitCode() {
    return Number(process.exitCode ?? 0);
  },
  set exitCode(code: number) {
    process.exitCode = code;
  },
});

/** What a command needs of the CLI. */
export interface Cli {
  io: Io;
  /** Prints an answer: as JSON with --json, else as `render` (by default `plain`) shows it. */
  print(answer: unknown, render?: (answer: never) => string): void;
  /** The global options (--url, --keypair, --json), once parsed. */
  g(): Global;
  /** The operator client without a token, for the reads anyone may make (tokens, venues, pools). */
  anonymous(): OperatorClient;
  /** Signs in with the keypair file (an owner's or an auditor's): the operator client with its token. */
  signIn(): Promise<OperatorClient>;
  /** The keypair file's wallet, to sign with (an approver signs an approval's message). */
  wallet(): Signer;
  /**
   * An action that signs in first, calls `fn` with the signed-in client and the action's arguments,
   * then prints what it answers (`render`, given the same arguments, shows it to people; --json
   * prints it as it is).
   */
  authed<A extends unknown[], R>(
    fn: (api: OperatorClient, ...args: A) => Promise<R>,
    render?: (answer: R, ...args: A) => string,
  ): (...args: A) => Promise<void>;
}

/** The CLI of one run: `g` reads the global options once they are parsed. */
export function createCli(g: () => Global, io: Io): Cli {
  const print: Cli['print'] = (answer, render = plain) =>
    io.out(g().json ? JSON.stringify(answer, null, 2) : render(answer as never));
  return {
    io,
    g,
    print,
    anonymous: () => new OperatorClient({ baseUrl: g().url }),
    signIn: () => signIn(g()),
    wallet: () => loadKeypair(g().keypair),
    authed:
      (fn, render) =>
      async (...args) =>
        print(await fn(await signIn(g()), ...args), render && ((answer) => render(answer, ...args))),
  };
}
