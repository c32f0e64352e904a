/**
 * The webhook delivery settings from the environment: WEBHOOK_ALLOWED_PRIVATE_HOSTS (comma-separated
 * hosts, `host` for every port or `host:port` for one, that deliveries and x402 requests may reach
 * although private; empty by default: net/allowed-hosts.ts), WEBHOOK_CA_FILE (a PEM
 * file of extra CAs trusted for deliveries), WEBHOOK_RETRY_BASE_MS (the first retry's delay, 5 s),
 * WEBHOOK_RETRY_FOR_MS (how long a delivery is retried, 3 days) and WEBHOOK_CONCURRENCY (attempts in
 * flight per worker, 64).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Env } from './env';
import { allowedHostText, parseAllowedHost } from '../net/allowed-hosts';

export interface WebhookSettings {
  /** Entries in their normal form: `host` (every port) or `host:port` (that port only). */
  allowedPrivateHosts: string[];
  /** PEM text of the extra CAs, when WEBHOOK_CA_FILE is set. */
  ca?: string;
  retryBaseMs: number;
  retryForMs: number;
  concurrency: number;
}

function readCa(env: Env): string | undefined {
  const path = env.raw('WEBHOOK_CA_FILE');
  if (path === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    env.problems.push(`WEBHOOK_CA_FILE=${path}: cannot be read (${reason})`);
    return undefined;
  }
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) {
    env.problems.push(`WEBHOOK_CA_FILE=${path}: expected PEM certificates (-----BEGIN CERTIFICATE-----)`);
    return undefined;
  }
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      env.problems.push(`WEBHOOK_CA_FILE=${path}: certificate ${i + 1} does not parse`);
      return undefined;
    }
  }
  return blocks.join('\n');
}

/** The SSRF guard's settings (webhooks and x402 resources): the private hosts allowed, the extra CAs. */
export function outboundGuard(env: Env = new Env({})): Pick<WebhookSettings, 'allowedPrivateHosts' | 'ca'> {
  const allowedPrivateHosts: string[] = [];
  for (const entry of (env.raw('WEBHOOK_ALLOWED_PRIVATE_HOSTS') ?? '').split(',')) {
    if (!entry.trim()) continue;
    const allowed = parseAllowedHost(entry);
    if (allowed === undefined)
      env.problems.push(
        `WEBHOOK_ALLOWED_PRIVATE_HOSTS: ${entry.trim()} is not a host name or an IP address with an optional port (host or host:port, [IPv6]:port; no scheme, no path)`,
      );
    else if (!allowedPrivateHosts.includes(allowedHostText(allowed)))
      allowedPrivateHosts.push(allowedHostText(allowed));
  }
  const ca = readCa(env);
  return { allowedPrivateHosts, ...(ca !== undefined && { ca }) };
}

/** Reads the settings from `env`; without one, the catalogue's defaults. */
export function webhookSettings(env: Env = new Env({})): WebhookSettings {
  return {
    ...outboundGuard(env),
    retryBaseMs: env.int('WEBHOOK_RETRY_BASE_MS'),
    retryForMs: env.int('WEBHOOK_RETRY_FOR_MS'),
    concurrency: env.int('WEBHOOK_CONCURRENCY'),
  };
}
