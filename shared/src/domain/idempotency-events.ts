/**
 * The idempotency record of one (agent, key) lives in its own stream, `idem-<agent>-<digest of key>`:
 * claiming a key is an append that expects the stream's current revision, so of any number of
 * concurrent requests with the same key exactly one proceeds, on every API instance alike.
 */
import type { Event } from './events';
import type { IdempotencyRecord } from './idempotency';
import type { Fold } from './decider';

export type IdempotencyClaimed = Event<
  'idempotency.claimed',
  { fingerprint: string; intent_id: string; at: number }
>;
export type IdempotencyCompleted = Event<
  'idempotency.completed',
  { intent_id: string; status: number; body: unknown; at: number }
>;
/** The claim is given back: the operation never started (a failure before its intent was accepted). */
export type IdempotencyReleased = Event<'idempotency.released', { intent_id: string; at: number }>;
export type IdempotencyEvent = IdempotencyClaimed | IdempotencyCompleted | IdempotencyReleased;

export function evolveIdempotency(
  state: IdempotencyRecord | undefined,
  event: IdempotencyEvent,
): IdempotencyRecord | undefined {
  switch (event.type) {
    case 'idempotency.claimed':
      return {
        fingerprint: event.data.fingerprint,
        intent_id: event.data.intent_id,
        created_at: event.data.at,
      };
    case 'idempotency.completed':
      return state && state.intent_id === event.data.intent_id
        ? { ...state, response: { status: event.data.status, body: event.data.body } }
        : state;
  }
}

/** An idempotency key's stream: nothing until claimed, then its claim and answer. */
export const idempotencyFold: Fold<IdempotencyRecord | undefined, IdempotencyEvent> = {
  initialState: () => undefined,
  evolve: evolveIdempotency,
};
