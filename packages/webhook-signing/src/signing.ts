/**
 * Webhook signatures: the secrets, the headers of one delivery, and the check a receiver runs.
 *
 * Each delivery carries two signatures of the same body. The spec's own, `X-Service-Signature:
 * sha256=<hex>`, an HMAC-SHA256 of the body text keyed with the UTF-8 bytes of the whole secret as the
 * user holds it (`whsec_...` included). And the Standard Webhooks one (https://www.standardwebhooks.com),
 * `webhook-signature: v1,<base64>`, an HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed with the bytes
 * the secret's base64 part decodes to, so any Standard Webhooks library verifies it; a secret that is
 * not `whsec_<base64>` (one a caller chose, through the variant contract) is keyed with its UTF-8 bytes
 * in both signatures, which is well-defined for any text. During a secret's
 * rotation both secrets sign, and each header carries one signature per secret, space-separated.
 *
 * One module for both sides, the service's (shared re-exports it) and a receiver's (the TypeScript
 * client re-exports it): it needs node:crypto and lossless-json, nothing of the service.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isSafeNumber, parse } from 'lossless-json';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export const SECRET_PREFIX = 'whsec_';
/** How far a delivery's timestamp may be from now, either way, before a receiver refuses it. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * A new signing secret: `whsec_` and 32 bytes in standard base64, random or the ones given (a
 * proposal's, derived by the service's key vault, so the secret is made again and never stored).
 */
export function newSigningSecret(bytes: Uint8Array = randomBytes(32)): string {
  return `${SECRET_PREFIX}${Buffer.from(bytes).toString('base64')}`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The Standard Webhooks key of a secret: for `whsec_<base64>` (every secret this service makes), the
 * bytes its base64 part decodes to; for any other secret (a caller's own), its UTF-8 bytes.
 */
export function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : undefined;
  if (encoded !== undefined && encoded.length > 0 && BASE64.test(encoded))
    return Buffer.from(encoded, 'base64');
  return Buffer.from(secret, 'utf8');
}

/** `sha256=<hex>` of one secret: the HMAC of the body keyed with the secret's text. */
function serviceSignature(secret: string, body: string | Buffer): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
}

/** `v1,<base64>` of one secret: the HMAC of `<id>.<timestamp>.<body>` keyed with the decoded secret. */
function standardSignature(secret: string, id: string, timestamp: string, body: string | Buffer): Buffer {
  return createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`).update(body).digest();
}

export interface SignatureInput {
  /** The delivery's id (the same on every retry of it): `webhook-id`. */
  id: string;
  /** The event's name: `X-Service-Event`. */
  event: string;
  /** When this attempt was signed, in Unix seconds. */
  timestamp: number;
  /** The body exactly as it is sent. */
  body: string;
  /** The endpoint's secrets, newest first: two during a rotation's grace period. */
  secrets: readonly string[];
}

export type WebhookHeaders = Record<string, string>;

/** The headers of one delivery attempt: both signature styles, the event, the timestamp, the type. */
export function signatureHeaders({ id, event, timestamp, body, secrets }: SignatureInput): WebhookHeaders {
  if (secrets.length === 0) throw new Error('signatureHeaders: at least one secret is needed');
  if (!Number.isSafeInteger(timestamp)) throw new Error('signatureHeaders: the timestamp is Unix seconds');
  // The body goes to the HMACs as text (hashed as UTF-8): no copy of it into a Buffer first.
  const ts = String(timestamp);
  return {
    'content-type': 'application/json',
    'X-Service-Event': event,
    'X-Service-Timestamp': ts,
    'X-Service-Signature': secrets
      .map((s) => `sha256=${serviceSignature(s, body).toString('hex')}`)
      .join(' '),
    'webhook-id': id,
    'webhook-timestamp': ts,
    'webhook-signature': secrets
      .map((s) => `v1,${standardSignature(s, id, ts, body).toString('base64')}`)
      .join(' '),
  };
}

/** Valid headers of a delivery of `body`, for a receiver's own tests. */
export function webhookTestHeaders(
  body: string,
  secret: string,
  options: { id?: string; event?: string; timestamp?: number } = {},
): WebhookHeaders {
  return signatureHeaders({
    id: options.id ?? `msg_${randomBytes(12).toString('hex')}`,
    event: options.event ?? 'test.event',
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
    body,
    secrets: [secret],
  });
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Node's IncomingHttpHeaders (or any plain object of headers), or a fetch `Headers`. */
export type IncomingHeaders =
  Headers | Record<string, string | readonly string[] | undefined> | { get(name: string): string | null };

function header(headers: IncomingHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : String(value);
  }
  return undefined;
}

/** Whether any of the space-separated `<prefix><encoded>` signatures equals `expected`, in constant time. */
function anyMatches(list: string, prefix: string, encoding: 'hex' | 'base64', expected: Buffer): boolean {
  let match = false;
  for (const item of list.split(' ')) {
    if (!item.startsWith(prefix)) continue;
    const given = Buffer.from(item.slice(prefix.length), encoding);
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  return match;
}

function checkTimestamp(raw: string, name: string, toleranceSeconds: number, now: Date): void {
  if (!/^\d{1,15}$/.test(raw)) throw new WebhookVerificationError(`${name} is not Unix seconds: ${raw}`);
  const skew = Math.floor(now.getTime() / 1000) - Number(raw);
  if (skew > toleranceSeconds)
    throw new WebhookVerificationError(`${name} is too old (${skew} s, tolerance ${toleranceSeconds} s)`);
  if (-skew > toleranceSeconds)
    throw new WebhookVerificationError(
      `${name} is in the future (${-skew} s, tolerance ${toleranceSeconds} s)`,
    );
}

/**
 * Verifies a delivery: the Standard Webhooks headers when present, otherwise the X-Service ones. Any
 * one of the space-separated signatures may match; the timestamp must be within the tolerance either
 * way. Returns the parsed JSON payload, or throws a WebhookVerificationError saying what is wrong.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: IncomingHeaders,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): unknown {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? new Date();
  const standard = header(headers, 'webhook-signature');
  if (standard !== undefined) {
    const id = header(headers, 'webhook-id');
    const ts = header(headers, 'webhook-timestamp');
    if (id === undefined) throw new WebhookVerificationError('the webhook-id header is missing');
    if (ts === undefined) throw new WebhookVerificationError('the webhook-timestamp header is missing');
    checkTimestamp(ts, 'webhook-timestamp', tolerance, now);
    if (!anyMatches(standard, 'v1,', 'base64', standardSignature(secret, id, ts, rawBody)))
      throw new WebhookVerificationError('no webhook-signature matches this secret');
  } else {
    const signature = header(headers, 'x-service-signature');
    const ts = header(headers, 'x-service-timestamp');
    if (signature === undefined)
      throw new WebhookVerificationError(
        'no signature header: expected webhook-signature or X-Service-Signature',
      );
    if (ts === undefined) throw new WebhookVerificationError('the X-Service-Timestamp header is missing');
    checkTimestamp(ts, 'X-Service-Timestamp', tolerance, now);
    if (!anyMatches(signature, 'sha256=', 'hex', serviceSignature(secret, rawBody)))
      throw new WebhookVerificationError('no X-Service-Signature matches this secret');
  }
  try {
    const text = typeof rawBody === 'string' ? rawBody : UTF8.decode(rawBody);
    // A number a JavaScript number holds exactly becomes one; any other (an amount past a float's
    // precision) stays its exact text.
    return parse(text, null, (lexeme) => (isSafeNumber(lexeme) ? Number(lexeme) : lexeme));
  } catch {
    throw new WebhookVerificationError('the body is not valid JSON in UTF-8');
  }
}
