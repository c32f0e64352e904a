/**
 * Idempotency of the four mutating operations (design.md): the first response under a key is kept
 * and replayed for 24 hours; the same key with another body is refused, never a second operation; a
 * key whose operation is still running answers `idempotency_in_progress` (409). Keys are per agent.
 * Pure: the adapter stores the record atomically (insert-if-absent) and calls this with what it found.
 */
import { createHash } from 'node:crypto';
import { ServiceError } from '../errors';
import { DAY_MS } from './time';

export const IDEMPOTENCY_TTL_MS = DAY_MS;

export interface IdempotencyRecord {
  /** Fingerprint of the operation and its body (see requestFingerprint). */
  fingerprint: string;
  intent_id: string;
  created_at: number;
  /** Absent while the operation runs. */
  response?: { status: number; body: unknown };
}

export type IdempotencyDecision =
  | { kind: 'proceed' }
  | { kind: 'replay'; status: number; body: unknown }
  /**
   * `stale`: the key was claimed long ago and has no answer. A live instance decides within
   * milliseconds of claiming; one that died in between left the claim behind. If the log shows no
   * decision for the intent, the request may take the claim over and decide it (with the same intent
   * id, so a decision that did happen is never made twice).
   */
  | { kind: 'wait'; intent_id: string; stale: boolean };

/** How old a claim without a decision must be before a retry takes it over. */
export const ABANDONED_CLAIM_MS = 10_000;

/** A stable fingerprint of an operation and its body: key order does not matter, values do. */
export function requestFingerprint(operation: string, body: unknown): string {
  return createHash('sha256').update(operation).update('\u0000').update(canonical(body)).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Whether a key may be claimed: never claimed, or its record is past the 24 hours it is kept. */
export const keyIsFree = (existing: IdempotencyRecord | undefined, now: number): boolean =>
  !existing || now - existing.created_at >= IDEMPOTENCY_TTL_MS;

/**
 * What to do with a request, given the record found under its key (or none).
 * `wait`: the operation is running; the caller may wait for its outcome, then answer
 * `idempotency_in_progress` if it is still running.
 */
export function decideIdempotency(
  existing: IdempotencyRecord | undefined,
  fingerprint: string,
  now: number,
): IdempotencyDecision {
  if (!existing || keyIsFree(existing, now)) return { kind: 'proceed' };
  if (existing.fingerprint !== fingerprint) throw new ServiceError('idempotency_key_reused');
  if (existing.response) return { kind: 'replay', ...existing.response };
  return {
    kind: 'wait',
    intent_id: existing.intent_id,
    stale: now - existing.created_at >= ABANDONED_CLAIM_MS,
  };
}

export const inProgress = (): ServiceError => new ServiceError('idempotency_in_progress');

/** The header `idempotency-key` is optional; when sent, it must equal the body's `idempotency_key`. */
export function idempotencyKeyOf(header: string | undefined, bodyKey: string): string {
  if (header !== undefined && header !== bodyKey) {
    throw new ServiceError(
      'validation_error',
      'The idempotency-key header and the body idempotency_key differ.',
      [{ path: '/idempotency_key', issue: 'must equal the idempotency-key header when both are sent' }],
    );
  }
  return bodyKey;
}
