/**
 * The guard against requests to addresses that are not on the public internet (SSRF): webhook URLs
 * when they are registered, and every delivery attempt (the delivery worker resolves the name, checks
 * every address here, and connects only to an address it checked).
 *
 * Addresses are classified by ipaddr.js's special-purpose ranges (IANA registries), not a hand-kept
 * list. An IPv4 address is public when ipaddr.js calls it `unicast`. An IPv6 address is public when it
 * is global unicast (2000::/3) in no special range, or when it only wraps an IPv4 address that is
 * public; every wrapping form is unwrapped: IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo
 * (2001::/32, server and client). The local-use NAT64 prefix 64:ff9b:1::/48 is not globally reachable
 * and is refused whole. IPv4 host forms (decimal, hex, octal, shortened) are read as the WHATWG URL
 * parser reads them, which is how `fetch` reaches them.
 */
import ipaddr from 'ipaddr.js';

export interface AddressVerdict {
  /** Whether a request to this address reaches the public internet only. */
  public: boolean;
  /** The address as read (without brackets or zone). */
  address: string;
  /** Why not, when not public: its range (ipaddr.js's name), or the IPv4 address it carries and why. */
  reason?: string;
}

const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

/** The IPv4 address carried inside an IPv6 address, for each form that carries one; [] for none. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const parts = address.parts;
  const v4 = (hi: number, lo: number) =>
    new ipaddr.IPv4([(hi >> 8) & 0xff, hi & 0xff, (lo >> 8) & 0xff, lo & 0xff]);
  const last32 = () => v4(parts[6]!, parts[7]!);
  const zeros = (from: number, to: number) => parts.slice(from, to).every((p) => p === 0);
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [last32()];
    case 'rfc6052':
      return address.match(ipaddr.IPv6.parse('64:ff9b::'), 96) ? [last32()] : [];
    case '6to4':
      return [v4(parts[1]!, parts[2]!)];
    case 'teredo':
      // The server's IPv4 in bits 32-63, the client's (inverted) in the last 32 bits.
      return [v4(parts[2]!, parts[3]!), v4(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff)];
    default:
      // IPv4-compatible (::a.b.c.d, deprecated): the first 96 bits zero; :: and ::1 are not addresses.
      return zeros(0, 6) && !(parts[6] === 0 && parts[7]! <= 1) ? [last32()] : [];
  }
}

function classify(parsed: ipaddr.IPv4 | ipaddr.IPv6, text: string): AddressVerdict {
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast'
      ? { public: true, address: text }
      : { public: false, address: text, reason: `${range} IPv4 address` };
  }
  const v6 = parsed as ipaddr.IPv6;
  const inner = embeddedIPv4(v6);
  if (inner.length > 0) {
    for (const v4 of inner) {
      const verdict = classify(v4, v4.toString());
      if (!verdict.public)
        return { public: false, address: text, reason: `carries ${v4} (${verdict.reason})` };
    }
    return { public: true, address: text };
  }
  const range = v6.range();
  if (range !== 'unicast') return { public: false, address: text, reason: `${range} IPv6 address` };
  if (!v6.match(GLOBAL_UNICAST, 3))
    return { public: false, address: text, reason: 'IPv6 address outside global unicast (2000::/3)' };
  return { public: true, address: text };
}

/** Classifies one IP address (IPv4 dotted, or IPv6 with or without brackets); anything else is not public. */
export function classifyAddress(address: string): AddressVerdict {
  const text = address.replace(/^\[|\]$/g, '');
  if (text.includes('%')) return { public: false, address: text, reason: 'a scoped (zone) address' };
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) parsed = ipaddr.IPv4.parse(text);
  else if (ipaddr.IPv6.isValid(text) && text.includes(':')) parsed = ipaddr.IPv6.parse(text);
  else return { public: false, address: text, reason: 'not an IP address' };
  return classify(parsed, text);
}

export const isPublicAddress = (address: string): boolean => classifyAddress(address).public;

export type Resolver = (host: string) => Promise<string[]>;

export type UrlVerdict = { ok: true; url: URL; addresses: string[] } | { ok: false; issue: string };

/**
 * Checks an outbound URL: it parses (WHATWG), is https, carries no credentials, and its host is or
 * resolves to public addresses only (every one of them). On success, the addresses to connect to: a
 * caller connects to one of these and never resolves the name again.
 */
export async function checkPublicUrl(raw: string, resolve: Resolver): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, issue: 'is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, issue: 'must use https' };
  if (url.username || url.password) return { ok: false, issue: 'must not carry credentials' };
  if (url.port === '0') return { ok: false, issue: 'must not use port 0' };
  const host = url.hostname;
  if (!host) return { ok: false, issue: 'has no host' };
  const literal = host.startsWith('[') || /^[\d.]+$/.test(host);
  let addresses: string[];
  if (literal) addresses = [host.replace(/^\[|\]$/g, '')];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, issue: 'does not resolve' };
    }
  }
  if (addresses.length === 0) return { ok: false, issue: 'does not resolve' };
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.public)
      return {
        ok: false,
        issue: `must resolve to public addresses only (${verdict.address}: ${verdict.reason})`,
      };
  }
  return { ok: true, url, addresses };
}
