/**
 * What every command of the CLI builds on: the global options, signing in with a keypair file (the
 * Solana CLI's JSON format: 64 bytes, seed then public key), calling the service, and printing its
 * answers (`--json` prints them as they are). Commands get it as a `Cli`.
 */
import bs58 from 'bs58';
import { existsSync, readFileSync } from 'node:fs';
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

/** Calls the service; an error answer throws, with its envelope (and details) in the message. */
export async function call(
  g: Global,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Record<string, unknown>> {
  const url = `${g.url.replace(/\/$/, '')}/api/v1${path}`;
  const res = await fetch(url, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).catch((err: unknown) => {
    throw new Error(unreachable(g.url, err));
  });
  const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const details = Array.isArray(answer.details)
      ? (answer.details as { path?: unknown; issue?: unknown }[])
          .map((d) => `${String(d.path ?? '')}: ${String(d.issue ?? '')}`)
          .join('; ')
      : '';
    throw new Error(
      `${res.status} ${String(answer.error ?? '')}: ${String(answer.message ?? res.statusText)}` +
        (details && ` (${details})`),
    );
  }
  return answer;
}

/** No answer at all: which URL was tried, why it failed, and how to point the CLI elsewhere. */
function unreachable(url: string, err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const why = cause instanceof Error ? cause.message || cause.name : String(cause);
  return (
    `cannot reach the service at ${url} (${why}). Is it running there? ` +
    'Point the CLI at it with --url <url> or the TOKENOPS_URL environment variable.'
  );
}

async function signIn(g: Global): Promise<string> {
  const wallet = loadKeypair(g.keypair);
  const challenge = await call(g, 'POST', '/orchestrator/auth/challenge', { wallet: wallet.address });
  const message = String(challenge.message);
  const signature = bs58.encode(wallet.sign(Buffer.from(message, 'utf8')));
  return String(
    (await call(g, 'POST', '/orchestrator/auth/token', { wallet: wallet.address, message, signature })).token,
  );
}

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
  /** Calls the service (see `call`). */
  call: typeof call;
  /** Signs in with the keypair file (an owner's or an auditor's) and answers the token. */
  signIn(): Promise<string>;
  /**
   * An action that signs in first, calls `fn` with the operator token and the action's arguments,
   * then prints what it answers (`render`, given the same arguments, shows it to people; --json
   * prints it as it is).
   */
  authed<A extends unknown[], R>(
    fn: (token: string, ...args: A) => Promise<R>,
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
    call,
    print,
    signIn: () => signIn(g()),
    authed:
      (fn, render) =>
      async (...args) =>
        print(await fn(await signIn(g()), ...args), render && ((answer) => render(answer, ...args))),
  };
}
