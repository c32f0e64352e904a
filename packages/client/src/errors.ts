/**
 * Refusals as typed values. Every error the service answers carries its contract envelope
 * (`{ error, message, details? }`); the client turns it into a TokenOpsError whose `code` is one of the
 * contract's codes (the union comes from the generated types, hence from the service's catalogue).
 * Two codes are the client's own: `network_error` (no answer at all, after the retries) and
 * `unexpected_response` (an answer that is not the contract's envelope, such as a proxy's HTML page).
 */
import type { components } from './generated/agent-api';

type ErrorBody = components['schemas']['ErrorBody'];
/** Every error code of the contract (docs/errors.md). */
export type ErrorCode = ErrorBody['error'];
/** One failing field of a `validation_error`: a JSON Pointer and the reason. */
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];
/** The client's own codes: nothing came back, or something that is not the contract's error body. */
export type ClientErrorCode = 'network_error' | 'unexpected_response';

export class TokenOpsError extends Error {
  override readonly name = 'TokenOpsError';
  /** The failing fields of a `validation_error`. */
  readonly details?: ErrorDetail[];
  /** What the service's Retry-After asked for, in seconds (429, 503). */
  readonly retryAfterSeconds?: number;
  /** The spend's idempotency key: send it again to retry this very operation later. */
  readonly idempotencyKey?: string;

  constructor(
    /** The contract's code (match on it, not on the message), or the client's own. */
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    /** The HTTP status; 0 when no answer came back. */
    readonly status: number,
    extra: {
      details?: ErrorDetail[];
      retryAfterSeconds?: number;
      idempotencyKey?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    if (extra.details) this.details = extra.details;
    if (extra.retryAfterSeconds !== undefined) this.retryAfterSeconds = extra.retryAfterSeconds;
    if (extra.idempotencyKey !== undefined) this.idempotencyKey = extra.idempotencyKey;
  }
}

/** Whether `err` is a TokenOpsError, with one of the given codes when any are given. */
export function isTokenOpsError<C extends ErrorCode | ClientErrorCode>(
  err: unknown,
  ...codes: C[]
): err is TokenOpsError & { code: C } {
  return err instanceof TokenOpsError && (codes.length === 0 || (codes as string[]).includes(err.code));
}

const isEnvelope = (body: unknown): body is ErrorBody =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as ErrorBody).error === 'string' &&
  typeof (body as ErrorBody).message === 'string';

/** The TokenOpsError of an error answer. */
export function errorOf(
  response: Response,
  body: unknown,
  retryAfterSeconds: number | undefined,
  idempotencyKey: string | undefined,
): TokenOpsError {
  const extra = {
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    ...(idempotencyKey !== undefined && { idempotencyKey }),
  };
  if (!isEnvelope(body))
    return new TokenOpsError(
      'unexpected_response',
      `HTTP ${response.status} without the contract's error body`,
      response.status,
      extra,
    );
  return new TokenOpsError(body.error, body.message, response.status, {
    ...extra,
    ...(body.details && { details: body.details }),
  });
}
