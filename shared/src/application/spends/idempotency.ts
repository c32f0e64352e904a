/**
 * The idempotency protocol of the spend operations, once: one operation per (agent, key), its first
 * answer kept and replayed for 24 hours, the same key with another body refused.
 *
 * `claimKey` says what a request is to do: replay a recorded answer, run the operation under a new
 * (or an abandoned) claim, or wait for the operation another request started. `stageClaim` is the
 * claim made instead in the decision's own atomic append, for a key this process knows nothing of
 * (`freeKey`); when another request claimed it first, the append fails on the key's stream and the
 * request goes the `claimKey` way (`KeyTaken`). `complete` records the answer (first writer wins): a
 * refusal at once, a settled intent's answer only when a retry asks for it (until then a retry derives
 * it from the agent's stream: spends/pipeline.ts); `release` gives the claim back when nothing happened.
 */
import Big from 'big.js';
import { v7 as uuidv7 } from 'uuid';
import { decideIdempotency, keyIsFree, type IdempotencyRecord } from '../../domain/idempotency';
import type { IdempotencyClaimed } from '../../domain/idempotency-events';
import { ServiceError, type ErrorEnvelope } from '../../errors';
import { WrongExpectedRevision } from '../../event-store/port';
import type { Context } from '../context';
import type { Loaded, Staged } from '../repository';

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
  stream: string,
  fingerprint: string,
  amountFields: readonly string[],
  /** Read the key first: a claim made with the decision found it taken. */
  read = false,
): Promise<Claim> {
  // A key is new almost always: claim it on what this process knows (nothing, for a new key) without
  // reading; the append's expected revision says if that was wrong, and then the key is read.
  for (let fresh = read; ; fresh = true) {
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
      await ctx.idempotency.append(stream, loaded, [claimed(ctx, fingerprint, intentId)]);
      return { kind: 'run', stream, intentId, takenOver: false };
    } catch (err) {
      if (err instanceof WrongExpectedRevision) continue; // another request claimed it first: look again
      throw err;
    }
  }
}

const claimed = (ctx: Context, fingerprint: string, intentId: string): IdempotencyClaimed => ({
  type: 'idempotency.claimed',
  data: { fingerprint, intent_id: intentId, at: ctx.now() },
});

/** A key not claimed yet, to be claimed with the decision (`stageClaim`) as `intentId`. */
export interface FreeKey {
  stream: string;
  fingerprint: string;
  intentId: string;
  loaded: Loaded<IdempotencyRecord | undefined>;
}

/** The key, when this process knows nothing of it (a new key, almost always); else undefined: `claimKey` it. */
export function freeKey(ctx: Context, stream: string, fingerprint: string): FreeKey | undefined {
  const loaded = ctx.idempotency.peek(stream);
  return loaded.revision === 'no_stream' ? { stream, fingerprint, intentId: uuidv7(), loaded } : undefined;
}

/**
 * The key's claim, staged to land in the decision's own append (`appendTogether`): the key is claimed
 * exactly when the decision lands. If another request claimed it first, that append fails on the key's
 * stream: `KeyTaken`.
 */
export function stageClaim(ctx: Context, key: FreeKey): Staged {
  return ctx.idempotency.stage(key.stream, key.loaded, [claimed(ctx, key.fingerprint, key.intentId)]);
}

/** Another request claimed the key first: what it answers is the key's answer (`claimKey`, read). */
export class KeyTaken extends Error {
  constructor(readonly stream: string) {
    super(`idempotency key ${stream} was claimed by another request`);
    this.name = 'KeyTaken';
  }
}

/**
 * Records the answer under the key (first writer wins; the answer is the same either way) and returns it;
 * a refusal is thrown. `free`: the key is not claimed yet (a refusal before the decision's append): it is
 * claimed and answered in one append, unless another request claimed it meanwhile (`KeyTaken`).
 */
export async function complete(
  ctx: Context,
  stream: string,
  intentId: string,
  answer: Answer,
  free?: FreeKey,
): Promise<Answer> {
  const body = JSON.parse(
    JSON.stringify(answer.body, (_k, v: unknown) => (v instanceof Big ? v.toFixed() : v)),
  ) as unknown;
  const completed = {
    type: 'idempotency.completed' as const,
    data: { intent_id: intentId, status: answer.status, body, at: ctx.now() },
  };
  const taken = await ctx.idempotency
    .handle(stream, (state) => {
      if (state?.intent_id === intentId) return { events: state.response ? [] : [completed], result: false };
      if (free && keyIsFree(state, ctx.now()))
        return { events: [claimed(ctx, free.fingerprint, intentId), completed], result: false };
      return { events: [], result: free !== undefined };
    })
    .catch(() => false); // unrecorded, a retry rebuilds the same answer from the log
  if (taken) throw new KeyTaken(stream);
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
