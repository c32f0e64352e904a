/**
 * Requests to an x402 resource: HTTPS only, no credentials in the URL, every connection through the
 * SSRF guard (net/guarded-agent.ts, the webhooks' guard and settings: WEBHOOK_ALLOWED_PRIVATE_HOSTS,
 * WEBHOOK_CA_FILE), no redirect followed (a 30x is answered as it is), within a deadline, and at most
 * RESOURCE_BODY_CAP bytes of the answer kept (the rest is cut, and said so).
 */
import { EventEmitter } from 'node:events';
import type { Agent } from 'undici';
import { ServiceError } from '../errors';
import { AddressRefused, guardedAgent, type GuardOptions } from '../net/guarded-agent';
import { RESOURCE_BODY_CAP, type ResourceAnswer, type ResourceRequest } from './port';

export { RESOURCE_BODY_CAP, type ResourceAnswer, type ResourceRequest } from './port';
export const RESOURCE_TIMEOUT_MS = 30_000;

/** The headers of an answer the service keeps: what the agent needs to read the body, and x402's. */
const KEPT_HEADERS = ['content-type', 'payment-required', 'payment-response'];
/** Headers the agent may not set: the transport's, and x402's own. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'payment-signature',
  'x-payment',
]);

/** Why a URL is refused before anything is asked of it, or undefined. */
export function urlRefusal(url: string): string | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (target.protocol !== 'https:') return 'not an https URL';
  if (target.username || target.password) return 'the URL carries credentials';
  if (target.port === '0') return 'port 0';
  return undefined;
}

/** Refuses (x402_url_refused) a URL the service does not request, before anything is asked. */
export function checkResourceUrl(url: string): void {
  const refused = urlRefusal(url);
  if (refused) throw new ServiceError('x402_url_refused', `The resource URL is refused: ${refused}.`);
}

export class ResourceClient {
  private readonly agent: Agent;

  constructor(
    options: GuardOptions = {},
    private readonly timeoutMs = RESOURCE_TIMEOUT_MS,
  ) {
    this.agent = guardedAgent({ ...options, timeoutMs });
  }

  /**
   * One request (with the payment header when given). Throws ServiceError: `x402_url_refused` for a
   * URL or address the guard refuses (nothing was sent), `x402_resource_unavailable` when it cannot be
   * reached or does not answer in time.
   */
  async request(req: ResourceRequest, payment?: string): Promise<ResourceAnswer> {
    checkResourceUrl(req.url);
    const target = new URL(req.url);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers ?? {}))
      if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name] = value;
    if (payment !== undefined) headers['PAYMENT-SIGNATURE'] = payment;
    const cancel = new EventEmitter();
    const timer = setTimeout(() => cancel.emit('abort'), this.timeoutMs);
    try {
      const response = await this.agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: req.method as 'GET',
        headers,
        ...(req.body !== undefined && { body: req.body }),
        signal: cancel,
      });
      const { text, truncated } = await readCapped(response.body);
      const kept: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = response.headers[name];
        if (value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      return { status: response.statusCode, headers: kept, body: text, ...(truncated && { truncated }) };
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      const guard = err instanceof AddressRefused ? err : cause instanceof AddressRefused ? cause : undefined;
      if (guard) throw new ServiceError('x402_url_refused', `The resource URL is refused: ${guard.message}.`);
      throw new ServiceError(
        'x402_resource_unavailable',
        `The resource could not be reached: ${(err as Error).message ?? String(err)}`.slice(0, 300),
      );
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > RESOURCE_BODY_CAP) {
      chunks.push(chunk.subarray(0, RESOURCE_BODY_CAP - size));
      size = RESOURCE_BODY_CAP;
      (body as unknown as { destroy?: () => void }).destroy?.();
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}
