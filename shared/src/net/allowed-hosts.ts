/**
 * The private hosts outbound requests may reach (WEBHOOK_ALLOWED_PRIVATE_HOSTS): each entry a host
 * (a name or an address), which opens every port of it, or a host and a port, which opens that port
 * only. The SSRF guard (guarded-agent.ts: webhook deliveries, x402 resources) and the webhook URL check
 * at registration read them the same way, with `allowedPrivate`.
 */
import ipaddr from 'ipaddr.js';

/**
 * A host as the guard compares it: an address in ipaddr.js's normal form, a name as the WHATWG URL
 * parser reads it (lower case, punycode; IPv4 written in decimal, hex or octal is an address);
 * undefined when it is neither, or carries a scheme, a port, a path or credentials.
 */
export function normaliseHost(entry: string): string | undefined {
  const text = entry.trim().replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.IPv6.isValid(text) && text.includes(':')) return ipaddr.parse(text).toString();
  if (!text || /[:/?#@\\\s[\]]/.test(text)) return undefined;
  let host: string;
  try {
    host = new URL(`https://${text}/`).hostname;
  } catch {
    return undefined;
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return ipaddr.parse(host).toString();
  return host.replace(/\.$/, '') || undefined;
}

/** One entry: its host (normalised) and, when it names one, its port. */
export interface AllowedHost {
  host: string;
  port?: number;
}

/**
 * An entry read: `host`, `host:port`, an IPv6 address alone or in brackets with a port
 * (`[::1]:8443`); undefined for anything else (a scheme, a path, credentials, a port outside 1-65535).
 */
export function parseAllowedHost(entry: string): AllowedHost | undefined {
  const text = entry.trim();
  let hostText: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) {
    if (!ipaddr.IPv6.isValid(bracketed[1]!)) return undefined;
    [, hostText, portText] = bracketed as unknown as [string, string, string | undefined];
  } else if (ipaddr.IPv6.isValid(text) && text.includes(':')) {
    hostText = text; // an IPv6 address without brackets takes no port: its last group would read as one
  } else {
    const plain = /^([^:]+)(?::(\d{1,5}))?$/.exec(text);
    if (!plain) return undefined;
    [, hostText, portText] = plain as unknown as [string, string, string | undefined];
  }
  const host = normaliseHost(hostText);
  if (host === undefined) return undefined;
  if (portText === undefined) return { host };
  const port = Number(portText);
  return port >= 1 && port <= 65_535 ? { host, port } : undefined;
}

/** An entry in its normal form: `host`, `host:port`, `[IPv6]:port`. */
export const allowedHostText = ({ host, port }: AllowedHost): string =>
  port === undefined ? host : host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;

/**
 * Whether the entries open `host` (a name or an address, as a URL or a connection names it) on `port`;
 * `opensOtherPorts` says whether they open it on some other port only (a refusal can say so).
 */
export function allowedPrivate(entries: readonly string[]) {
  const parsed = entries.flatMap((e) => parseAllowedHost(e) ?? []);
  const of = (host: string) => {
    const normal = normaliseHost(host);
    return normal === undefined ? [] : parsed.filter((e) => e.host === normal);
  };
  return {
    allows: (host: string, port: number): boolean =>
      of(host).some((e) => e.port === undefined || e.port === port),
    opensOtherPorts: (host: string): number[] =>
      of(host).flatMap((e) => (e.port === undefined ? [] : e.port)),
  };
}
