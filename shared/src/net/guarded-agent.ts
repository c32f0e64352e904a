/**
 * An HTTPS connection pool (an undici Agent) guarded against SSRF at the moment it connects: what
 * webhook deliveries and the x402 resource requests go out through.
 *
 * Each new connection resolves the URL's name once, with the injected Resolver, checks every address
 * it gets (classifyAddress: any private, loopback, link-local, ... address, or one wrapping such an
 * IPv4 address, refuses the whole connection, unless an allowed entry opens that host or address on
 * the connection's port) and hands the socket only addresses it checked; an IP
 * literal in the URL is checked the same way (the WHATWG parser has already read IPv4 written in
 * decimal, hex or octal). TLS verifies the certificate against the URL's host name. The Agent follows
 * no redirect (undici's `request` never does).
 */
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { classifyAddress, type Resolver } from './address-guard';
import { systemResolver } from './system-resolver';
import { allowedPrivate } from './allowed-hosts';

export interface GuardOptions {
  /**
   * Hosts it may reach although private (WEBHOOK_ALLOWED_PRIVATE_HOSTS): `host` (a name or an address,
   * every port) or `host:port` (that port only).
   */
  allowedPrivateHosts?: readonly string[];
  /**
   * Origins (`https://<IP address>:<port>`) it may reach although private, each exactly (its port
   * only): the embedded default's demo resource. Read at each connection, so it may grow.
   */
  allowedOrigins?: ReadonlySet<string>;
  /** PEM text of CAs trusted in addition to Node's roots (WEBHOOK_CA_FILE). */
  ca?: string;
  /** Resolves a name to every address; the system resolver by default. */
  resolve?: Resolver;
}

/** An address (or a whole name's addresses) the guard refused: the request fails with this message. */
export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

type LookupAddress = { address: string; family: number };
type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/** The guarded pool; `timeoutMs` bounds connecting, the response's headers and each read of its body. */
export function guardedAgent(options: GuardOptions & { timeoutMs: number }): Agent {
  const allowed = allowedPrivate(options.allowedPrivateHosts ?? []);
  const resolve = options.resolve ?? systemResolver;

  /** Why a connection to these addresses of `host` on `port` is refused, or undefined when it may go ahead. */
  const refusal = (host: string, port: number, addresses: readonly string[]): AddressRefused | undefined => {
    if (allowed.allows(host, port)) return undefined;
    for (const address of addresses) {
      const verdict = classifyAddress(address);
      if (verdict.public || allowed.allows(address, port)) continue;
      const of = host === address ? '' : ` (${host})`;
      const others = [...allowed.opensOtherPorts(host), ...allowed.opensOtherPorts(address)];
      const only = others.length
        ? `; WEBHOOK_ALLOWED_PRIVATE_HOSTS opens it on port ${[...new Set(others)].join(', ')} only, not ${port}`
        : '';
      return new AddressRefused(`refused address ${verdict.address}${of}: ${verdict.reason}${only}`);
    }
    return undefined;
  };

  /** net's `lookup` for new connections to `port`: one resolution, every address checked, only those handed on. */
  const lookupFor =
    (port: number) =>
    (hostname: string, opts: { all?: boolean; family?: number }, callback: LookupCallback) => {
      // A resolver that throws at once fails the same way as one that rejects.
      Promise.resolve(hostname)
        .then(resolve)
        .then(
          (addresses) => {
            if (addresses.length === 0)
              return callback(new AddressRefused(`${hostname} does not resolve`), []);
            const refused = refusal(hostname, port, addresses);
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
    };

  // One secure context for every connection: a `ca` option would build one (and parse Node's ~150
  // root certificates) per connection.
  const secureContext =
    options.ca !== undefined ? createSecureContext({ ca: [...rootCertificates, options.ca] }) : undefined;
  // A connector per port, each checking with its port (net's lookup is told the name only); each keeps
  // the TLS sessions of its port's servers.
  const connectors = new Map<number, buildConnector.connector>();
  const connectorFor = (port: number): buildConnector.connector => {
    let connector = connectors.get(port);
    if (!connector) {
      connector = buildConnector({
        ...(secureContext && { secureContext }),
        timeout: options.timeoutMs,
        lookup: lookupFor(port),
      } as buildConnector.BuildOptions);
      connectors.set(port, connector);
    }
    return connector;
  };
  return new Agent({
    connect: (opts, callback) => {
      const port = Number(opts.port) || (opts.protocol === 'http:' ? 80 : 443);
      // A literal address never reaches `lookup`: check it here (an origin allowed exactly passes).
      const origin = `${opts.protocol}//${isIP(opts.hostname) === 6 ? `[${opts.hostname}]` : opts.hostname}:${opts.port}`;
      if (isIP(opts.hostname) && !options.allowedOrigins?.has(origin)) {
        const refused = refusal(opts.hostname, port, [opts.hostname]);
        if (refused) return callback(refused, null);
      }
      connectorFor(port)(opts, callback);
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4_000,
  } as Agent.Options);
}

export const codeOf = (err: unknown): string | undefined =>
  typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : undefined;
