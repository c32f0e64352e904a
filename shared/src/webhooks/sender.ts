/**
 * One webhook delivery attempt over HTTPS, guarded against SSRF at the moment it connects.
 *
 * One keep-alive undici Agent (a pool per origin). Each new connection resolves the URL's name once,
 * with the injected Resolver, checks every address it gets (classifyAddress: any private, loopback,
 * link-local, ... address, or one wrapping such an IPv4 address, refuses the whole attempt) and hands
 * the socket only addresses it checked; an IP literal in the URL is checked the same way (the WHATWG
 * parser has already read IPv4 written in decimal, hex or octal). TLS verifies the certificate against
 * the URL's host name. Redirects are never followed. An attempt never throws: it ends `delivered`
 * (2xx), `gone` (410) or `failed` with a short reason, within `timeoutMs` in all.
 */
import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { classifyAddress, systemResolver, type Resolver } from '../net/address-guard';
import { normaliseHost } from './config';

export const DEFAULT_ATTEMPT_TIMEOUT_MS = 5_000;
/** How much of a response body is read (and dropped) so the connection can serve the next attempt. */
const BODY_CAP_BYTES = 64 * 1024;

export interface Attempt {
  outcome: 'delivered' | 'failed' | 'gone';
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  latencyMs: number;
  /** Why it failed, short. */
  error?: string;
}

export interface WebhookSenderOptions {
  /** Names or addresses deliveries may reach although private (WEBHOOK_ALLOWED_PRIVATE_HOSTS). */
  allowedPrivateHosts?: readonly string[];
  /** PEM text of CAs trusted in addition to Node's roots (WEBHOOK_CA_FILE). */
  ca?: string;
  /** Resolves a name to every address; the system resolver by default. */
  resolve?: Resolver;
  /** Each attempt in all: connecting, the response's headers and its body. */
  timeoutMs?: number;
}

export interface WebhookDelivery {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An address (or a whole name's addresses) the guard refused: the attempt fails with this message. */
export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

class AttemptTimeout extends Error {}

type LookupAddress = { address: string; family: number };
type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

export class WebhookSender {
  private readonly agent: Agent;
  private readonly allowed: Set<string>;
  private readonly resolve: Resolver;
  readonly timeoutMs: number;

  constructor(options: WebhookSenderOptions = {}) {
    this.allowed = new Set((options.allowedPrivateHosts ?? []).flatMap((h) => normaliseHost(h) ?? []));
    this.resolve = options.resolve ?? systemResolver;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    const tlsConnect = buildConnector({
      // One secure context for every connection: a `ca` option would build one (and parse Node's
      // ~150 root certificates) per connection.
      ...(options.ca !== undefined && {
        secureContext: createSecureContext({ ca: [...rootCertificates, options.ca] }),
      }),
      timeout: this.timeoutMs,
      lookup: (hostname: string, opts: { all?: boolean; family?: number }, callback: LookupCallback) =>
        this.lookup(hostname, opts, callback),
    } as buildConnector.BuildOptions);
    this.agent = new Agent({
      connect: (opts, callback) => {
        // A literal address never reaches `lookup`: check it here.
        if (isIP(opts.hostname)) {
          const refused = this.refusal(opts.hostname, [opts.hostname]);
          if (refused) return callback(refused, null);
        }
        tlsConnect(opts, callback);
      },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 4_000,
    } as Agent.Options);
  }

  /** Why a connection to these addresses of `host` is refused, or undefined when it may go ahead. */
  private refusal(host: string, addresses: readonly string[]): AddressRefused | undefined {
    if (this.allowed.has(normaliseHost(host) ?? '')) return undefined;
    for (const address of addresses) {
      const verdict = classifyAddress(address);
      if (verdict.public || this.allowed.has(normaliseHost(address) ?? '')) continue;
      const of = host === address ? '' : ` (${host})`;
      return new AddressRefused(`refused address ${verdict.address}${of}: ${verdict.reason}`);
    }
    return undefined;
  }

  /** net's `lookup` for new connections: one resolution, every address checked, only those handed on. */
  private lookup(hostname: string, opts: { all?: boolean; family?: number }, callback: LookupCallback): void {
    // A resolver that throws at once fails the same way as one that rejects.
    Promise.resolve(hostname)
      .then(this.resolve)
      .then(
        (addresses) => {
          if (addresses.length === 0) return callback(new AddressRefused(`${hostname} does not resolve`), []);
          const refused = this.refusal(hostname, addresses);
          if (refused) return callback(refused, []);
          const entries = addresses
            .map((address) => ({ address, family: isIP(address) }))
            .filter((e) => e.family !== 0 && (!opts.family || e.family === opts.family));
          if (entries.length === 0)
            return callback(new AddressRefused(`${hostname} has no usable address`), []);
          if (opts.all) callback(null, entries);
          else callback(null, entries[0]!.address, entries[0]!.family);
        },
        (err: unknown) =>
          callback(new AddressRefused(`${hostname} does not resolve (${codeOf(err) ?? 'error'})`), []),
      );
  }

  /** One attempt; never throws. */
  async send({ url, headers, body }: WebhookDelivery): Promise<Attempt> {
    const started = performance.now();
    const done = (attempt: Omit<Attempt, 'latencyMs'>): Attempt => ({
      ...attempt,
      latencyMs: Math.round(performance.now() - started),
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return done({ outcome: 'failed', error: 'not a valid URL' });
    }
    if (target.protocol !== 'https:') return done({ outcome: 'failed', error: 'not an https URL' });
    if (target.username || target.password)
      return done({ outcome: 'failed', error: 'the URL carries credentials' });

    // The deadline is raced, not only signalled: undici does not end a request still waiting for
    // its connection when the signal fires (a resolver that hangs, a slow handshake). The signal is
    // an EventEmitter, which undici takes too: an AbortController costs about 13 µs of CPU more an
    // attempt (measured on loopback, about a third of a raw request's own cost).
    const cancel = new EventEmitter();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new AttemptTimeout());
        cancel.emit('abort');
      }, this.timeoutMs);
    });
    let status: number | undefined;
    const exchange = (async () => {
      const response = await this.agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers,
        body,
        signal: cancel,
      });
      status = response.statusCode;
      // Read and dropped up to the cap (past it, or past the content length, the connection goes).
      await response.body.dump({ limit: BODY_CAP_BYTES });
      return response.statusCode;
    })();
    exchange.catch(() => undefined);
    try {
      const code = await Promise.race([exchange, deadline]);
      if (code >= 200 && code < 300) return done({ outcome: 'delivered', status: code });
      if (code === 410) return done({ outcome: 'gone', status: code });
      if (code >= 300 && code < 400)
        return done({ outcome: 'failed', status: code, error: `redirect (${code}) not followed` });
      return done({ outcome: 'failed', status: code, error: `HTTP ${code}` });
    } catch (err) {
      const error = isTimeout(err)
        ? `timed out after ${this.timeoutMs} ms${status === undefined ? '' : ' reading the response body'}`
        : describe(err);
      return done({ outcome: 'failed', ...(status !== undefined && { status }), error });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes every kept-alive connection (in-flight attempts end first). */
  close(): Promise<void> {
    return this.agent.close();
  }
}

const codeOf = (err: unknown): string | undefined =>
  typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : undefined;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const isTimeout = (err: unknown) => err instanceof AttemptTimeout || TIMEOUT_CODES.has(codeOf(err) ?? '');

/** A short reason for a failed attempt: the guard's own words, TLS's, or the socket's error code. */
function describe(err: unknown): string {
  const cause = (err as { cause?: unknown })?.cause;
  if (err instanceof AddressRefused) return err.message;
  if (cause instanceof AddressRefused) return cause.message;
  const code = codeOf(err) ?? codeOf(cause);
  // Node's own errors may come from another realm (a test's VM context): read the message, not the class.
  const text = (err as { message?: unknown })?.message;
  const message = (typeof text === 'string' ? text : String(err)).slice(0, 200);
  if (code?.startsWith('ERR_TLS') || /certificate|CERT|SSL|TLS/.test(`${code} ${message}`))
    return `TLS: ${message}${code ? ` (${code})` : ''}`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection closed by the receiver';
  return code ? `${code}: ${message}` : message;
}
