/**
 * The idempotency protocol of the spend operations, once: one operation per (agent, key), its first
 * answer kept and replayed for 24 hours, the same key with another body refused.
 *
 * `claimKey` says what a request is to do: replay a recorded answer, run the operation under a new
 * (or an abandoned) claim, or wait for the operation another request started. `complete` records the
 * answer (first writer wins): a refusal at once, a settled intent's answer only when a retry asks for
 * it (until then a retry derives it from the agent's stream: spends/pipeline.ts); `release` gives the
 * claim back when nothing happened.
 */
import Big from 'big.js';
import { v7 as uuidv7 } from 'uuid';
import { decideIdempotency } from '../../domain/idempotency';
import { streams } from '../../domain/events';
import { ServiceError, type ErrorEnvelope } from '../../errors';
import { WrongExpectedRevision } from '../../event-store/port';
import type { Context } from '../context';

/** What a spend answers: an HTTP status and its body (amounts as Big, written as exact JSON numbers). */
export interface Answer {
  status: number;
  body: unknown;
}

export type Claim =
  /** Answered before: the same answer again. */
  | { kind: 'replay'; answer: Answer }
  /** This request runs the operation, as `intentId` (a new claim, or one whose claimant died before deciding). */
  | { kind: 'run'; stream: string; intentId: string; takenOver: boolean }
  /** Another request runs it: wait for its outcome. */
  | { kind: 'wait'; stream: string; intentId: string };

export async function claimKey(
  ctx: Context,
  agentId: string,
  key: string,
  fingerprint: string,
  amountFields: readonly string[],
): Promise<Claim> {
  const stream = streams.idempotency(agentId, key);
  // A key is new almost always: claim it on what this process knows (nothing, for a new key) without
  // reading; the append's expected revision says if that was wrong, and then the key is read.
  for (let fresh = false; ; fresh = true) {
    const loaded = fresh ? await ctx.idempotency.load(stream) : ctx.idempotency.peek(stream);
    const decision = decideIdempotency(loaded.state, fingerprint, ctx.now());
    if (decision.kind !== 'proceed' && !fresh) continue; // only a fresh read may answer without appending
    if (decision.kind === 'replay')
      return {
        kind: 'replay',
        answer: { status: decision.status, body: revive(decision.body, amountFields) },
      };
    if (decision.kind === 'wait') {
      return decision.stale
        ? { kind: 'run', stream, intentId: decision.intent_id, takenOver: true }
        : { kind: 'wait', stream, intentId: decision.intent_id };
    }
    const intentId = uuidv7();
    try {
      await ctx.idempotency.append(stream, loaded, [
        { type: 'idempotency.claimed', data: { fingerprint, intent_id: intentId, at: ctx.now() } },
      ]);
      return { kind: 'run', stream, intentId, takenOver: false };
    } catch (err) {
      if (err instanceof WrongExpectedRevision) continue; // another request claimed it first: look again
      throw err;
    }
  }
}

/** Records the answer under the key (first writer wins; the answer is the same either way) and returns it; a refusal is thrown. */
export async function complete(
  ctx: Context,
  stream: string,
  intentId: string,
  answer: Answer,
): Promise<Answer> {
  const body = JSON.parse(
    JSON.stringify(answer.body, (_k, v: unknown) => (v instanceof Big ? v.toFixed() : v)),
  ) as unknown;
  await ctx.idempotency
    .handle(stream, (state) => ({
      events:
        state && state.intent_id === intentId && !state.response
          ? [
              {
                type: 'idempotency.completed' as const,
                data: { intent_id: intentId, status: answer.status, body, at: ctx.now() },
              },
            ]
          : [],
      result: undefined,
    }))
    .catch(() => undefined); // unrecorded, a retry rebuilds the same answer from the log
  return answered(answer);
}

/** An answer as the caller gets it: a success returned, a refusal thrown (the HTTP edge writes its envelope). */
export function answered(answer: Answer): Answer {
  if (answer.status >= 400) {
    const envelope = answer.body as ErrorEnvelope;
    throw new ServiceError(envelope.error, envelope.message, envelope.details);
  }
  return answer;
}

/** Gives the claim back: the operation never started, the same request may run it again. */
export async function release(ctx: Context, stream: string, intentId: string): Promise<void> {
  await ctx.idempotency
    .handle(stream, (state) => ({
      events:
        state && state.intent_id === intentId && !state.response
          ? [{ type: 'idempotency.released' as const, data: { intent_id: intentId, at: ctx.now() } }]
          : [],
      result: undefined,
    }))
    .catch(() => undefined); // unreleased, the claim is taken over as abandoned after a while
}

/** A recorded answer's amounts are exact decimal text; they are answered as JSON numbers again. */
function revive(body: unknown, amountFields: readonly string[]): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of amountFields)
    if (typeof out[field] === 'string') out[field] = new Big(out[field] as string);
  return out;
}
