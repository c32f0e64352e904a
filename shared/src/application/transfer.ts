/**
 * Transfer and simulate. The decision is made on the write model: the group, the agent, and for a
 * budgeted recipient the entry's budget, each read with its revision and appended to with that
 * revision expected. A conflict means another decision got there first: read again, decide again.
 * So however many requests and API instances decide at once, no limit or budget is exceeded.
 *
 * Order of appends for a budgeted recipient: the budget reservation first, then the agent's
 * acceptance. Deciding again for the same intent is safe (its own reservation counts for it); if the
 * retry is blocked, the reservation is released.
 */
import Big from 'big.js';
import { v7 as uuidv7 } from 'uuid';
import { acceptsKey } from '../domain/agent';
import { decideIntent, simulateTransfer, type IntentCommand } from '../domain/intent';
import { streams, type BlockCode, type IntentData } from '../domain/events';
import { decideIdempotency, idempotencyKeyOf, requestFingerprint } from '../domain/idempotency';
import { idempotencyStream } from '../domain/idempotency-events';
import { checkRecipient, resolveToken } from '../domain/tokens';
import { ERROR_CATALOGUE, ServiceError, isErrorCode, type ErrorEnvelope } from '../errors';
import { WrongExpectedRevision, type LogPosition } from '../event-store/port';
import { parseAmount, amountFromText } from '../money';
import type { SimulateRequest, TransferRequest } from '../contract/schemas';
import { settleReservation } from './budgets';
import type { Context } from './context';
import { CONFLICT_PATIENCE_MS } from './repository';
import type { Outcome, OutcomeWaiter } from './outcomes';

/** The caller, as the API authenticated it: the agent and its key's digest (checked again here). */
export interface Caller {
  agentId: string;
  keyDigest: string;
}

export interface Answer {
  status: number;
  body: unknown;
}

/** Called with the outcome's log position before answering: lets the read views catch up (read your writes). */
export type Settled = (position: LogPosition) => Promise<void>;

/** Transfers under the limits, idempotently: one operation per (agent, key), its answer replayed. */
export async function transfer(
  ctx: Context,
  waiter: OutcomeWaiter,
  caller: Caller,
  body: TransferRequest,
  headerKey?: string,
  settled?: Settled,
): Promise<Answer> {
  const key = idempotencyKeyOf(headerKey, body.idempotency_key);
  const fingerprint = requestFingerprint('transfer', body);
  const stream = idempotencyStream(caller.agentId, key);

  for (;;) {
    const loaded = await ctx.idempotency.load(stream);
    const decision = decideIdempotency(loaded.state, fingerprint, ctx.now());
    if (decision.kind === 'replay') return { status: decision.status, body: revive(decision.body) };
    if (decision.kind === 'wait') {
      // An instance that died between claiming the key and deciding left it claimed: decide it now.
      const known = decision.stale ? await intentRecord(ctx, caller.agentId, decision.intent_id) : undefined;
      if (known && !known.accepted && !known.blocked)
        return spendOnce(ctx, waiter, caller, body, stream, decision.intent_id, settled);
      return answerWhenSettled(ctx, waiter, caller, stream, decision.intent_id);
    }
    const intentId = uuidv7();
    try {
      await ctx.idempotency.append(stream, loaded, [
        { type: 'idempotency.claimed', data: { fingerprint, intent_id: intentId, at: ctx.now() } },
      ]);
    } catch (err) {
      if (err instanceof WrongExpectedRevision) continue; // another request claimed it first: look again
      throw err;
    }
    return spendOnce(ctx, waiter, caller, body, stream, intentId, settled);
  }
}

async function spendOnce(
  ctx: Context,
  waiter: OutcomeWaiter,
  caller: Caller,
  body: TransferRequest,
  stream: string,
  intentId: string,
  settled?: Settled,
): Promise<Answer> {
  let accepted = false;
  let answer: Answer;
  try {
    const { wait, intent } = await decideOnWriteModel(ctx, waiter, caller, body, intentId);
    accepted = true;
    const outcome = await wait;
    if (!outcome)
      throw new ServiceError(
        'idempotency_in_progress',
        'The transfer is still being executed; retry the same request to get its result.',
      );
    if (settled && outcome.position) await settled(outcome.position).catch(() => undefined);
    answer = answerFor(intent, outcome);
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'idempotency_in_progress') throw err;
    if (err instanceof ServiceError && err.status < 500) {
      await complete(ctx, stream, intentId, { status: err.status, body: err.toBody() });
      throw err;
    }
    // An unexpected failure before the intent was accepted: free the key, nothing happened.
    if (!accepted) await release(ctx, stream, intentId);
    throw err;
  }
  // Recorded once, outside the catch: a settled failure is recorded and thrown from here.
  return complete(ctx, stream, intentId, answer);
}

async function decideOnWriteModel(
  ctx: Context,
  waiter: OutcomeWaiter,
  caller: Caller,
  body: TransferRequest,
  intentId: string,
) {
  checkRecipient(body.to);
  const amount = parseAmount(body.amount);
  const agentStream = streams.agent(caller.agentId);
  // One decision at a time per agent in this process; a conflict then comes from another instance.
  return ctx.agents.exclusive(agentStream, async () => {
    const giveUpAt = Date.now() + CONFLICT_PATIENCE_MS;
    for (;;) {
      const agent = await ctx.agents.load(agentStream);
      if (!acceptsKey(agent.state, caller.keyDigest)) throw new ServiceError('unauthorized');
      const group = await ctx.groups.load(streams.group(agent.state.groupId));
      const cmd = command(ctx, group.state.baseMint, intentId, amount, body);
      const entry = group.state.entries.get(body.to);
      const budgetStream = entry?.type === 1 ? streams.budget(entry.entryId) : undefined;
      const budget = budgetStream ? await ctx.budgets.load(budgetStream) : undefined;
      const decision = decideIntent(cmd, {
        group: group.state,
        agent: agent.state,
        ...(budget && { budget: budget.state }),
      });
      if (decision.accepted && decision.agentEvents.length === 0) {
        // Accepted already (a retry that took over a stale claim raced another): wait for its outcome.
        const wait = waiter.expect(intentId, ctx.settings.outcomeTimeoutMs);
        const known = await intentRecord(ctx, caller.agentId, intentId);
        if (known.outcome) wait.cancel();
        return {
          wait: known.outcome ? Promise.resolve(known.outcome) : wait.outcome,
          intent: acceptanceOf(known, intentId),
        };
      }
      try {
        if (budgetStream && budget) await ctx.budgets.append(budgetStream, budget, decision.budgetEvents);
        if (!decision.accepted) {
          await ctx.agents.append(agentStream, agent, decision.agentEvents);
          throw new ServiceError(decision.code!);
        }
        const wait = waiter.expect(intentId, ctx.settings.outcomeTimeoutMs);
        try {
          await ctx.agents.append(agentStream, agent, decision.agentEvents);
        } catch (err) {
          wait.cancel();
          throw err;
        }
        return { wait: wait.outcome, intent: decision.agentEvents[0]!.data as IntentData };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevision)) throw err;
        if (Date.now() >= giveUpAt) {
          // Give up with nothing done: a reservation this intent made on the budget is released.
          if (budgetStream && entry) await settleReservation(ctx, entry, intentId, false);
          throw new ServiceError(
            'service_unavailable',
            'Too many decisions on this agent at once across instances; nothing was done, retry shortly.',
          );
        }
      }
    }
  });
}

function command(
  ctx: Context,
  baseMint: string,
  intentId: string,
  amount: Big,
  body: TransferRequest,
): IntentCommand {
  const token = resolveToken(ctx.chain.tokens, body.mint, baseMint);
  if (token.mint !== baseMint) {
    // Limits are in the base token; another token is valued at the aggregator's quote, which needs
    // the swap aggregator (not built yet). Refused rather than valued at a made-up price.
    throw new ServiceError(
      'invalid_mint',
      `Transfers are in the group's base token for now; ${token.symbol} cannot be valued yet.`,
    );
  }
  return {
    intent_id: intentId,
    action: 'transfer',
    amount,
    value: amount,
    mint: token.mint,
    decimals: token.decimals,
    counterparty: body.to,
    ...(body.memo !== undefined && { memo: body.memo }),
    ...(body.task_id !== undefined && { task_id: body.task_id }),
    idempotency_key: body.idempotency_key,
    now: ctx.now(),
  };
}

/** The answer of a settled intent, from its acceptance and its outcome. */
function answerFor(accepted: IntentData, outcome: Outcome): Answer {
  if (outcome.type === 'intent.failed') {
    const code = isErrorCode(outcome.data.code) ? outcome.data.code : 'internal_error';
    const err = new ServiceError(code, outcome.data.message || ERROR_CATALOGUE[code].message);
    return { status: err.status, body: err.toBody() };
  }
  return {
    status: 200,
    body: {
      tx_sig: outcome.data.tx_sig,
      status: 'confirmed',
      net_amount: amountFromText(accepted.net_amount ?? accepted.amount),
      protocol_fee: amountFromText(accepted.protocol_fee ?? '0'),
      daily_remaining: amountFromText(accepted.daily_remaining_after ?? '0'),
      hourly_tx_remaining: accepted.hourly_tx_remaining_after ?? 0,
    },
  };
}

/** What the agent's stream holds about one intent: its acceptance or its block, and its outcome. */
interface IntentRecord {
  accepted?: IntentData;
  blocked?: BlockCode;
  outcome?: Outcome;
}

async function intentRecord(ctx: Context, agentId: string, intentId: string): Promise<IntentRecord> {
  const record: IntentRecord = {};
  for (const e of await ctx.store.readStream(streams.agent(agentId))) {
    if ((e.data as { intent_id?: string }).intent_id !== intentId) continue;
    if (e.type === 'intent.accepted') record.accepted ??= e.data as IntentData;
    else if (e.type === 'intent.blocked') record.blocked ??= (e.data as { code: BlockCode }).code;
    else if (e.type === 'intent.confirmed' || e.type === 'intent.failed')
      record.outcome ??= { type: e.type, data: e.data } as Outcome;
  }
  return record;
}

function acceptanceOf(record: IntentRecord, intentId: string): IntentData {
  if (!record.accepted) throw new Error(`intent ${intentId} was not accepted`);
  return record.accepted;
}

/** A retry of a request whose intent is running: wait for it (a while), then answer as the first would have. */
async function answerWhenSettled(
  ctx: Context,
  waiter: OutcomeWaiter,
  caller: Caller,
  stream: string,
  intentId: string,
): Promise<Answer> {
  const wait = waiter.expect(intentId, ctx.settings.outcomeTimeoutMs);
  const known = await intentRecord(ctx, caller.agentId, intentId);
  if (known.blocked) {
    // Blocked, and the instance that decided it died before recording the answer: answer it now.
    wait.cancel();
    const err = new ServiceError(known.blocked);
    return complete(ctx, stream, intentId, { status: err.status, body: err.toBody() });
  }
  const outcome = known.outcome ?? (await wait.outcome);
  wait.cancel();
  if (!outcome) throw new ServiceError('idempotency_in_progress');
  // Accepted before it settled; read again only if the acceptance came after the first read.
  const intent = acceptanceOf(
    known.accepted ? known : await intentRecord(ctx, caller.agentId, intentId),
    intentId,
  );
  return complete(ctx, stream, intentId, answerFor(intent, outcome));
}

/** The amount fields of a transfer answer: stored as exact decimal text, answered as JSON numbers. */
const AMOUNT_FIELDS = ['net_amount', 'protocol_fee', 'daily_remaining'] as const;

function revive(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of AMOUNT_FIELDS)
    if (typeof out[field] === 'string') out[field] = new Big(out[field] as string);
  return out;
}

/** Records the answer under the key (first writer wins; the answer is the same either way) and returns it. */
async function complete(ctx: Context, stream: string, intentId: string, answer: Answer): Promise<Answer> {
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
    .catch(() => undefined);
  if (answer.status >= 400)
    throw new ServiceError((answer.body as ErrorEnvelope).error, (answer.body as ErrorEnvelope).message);
  return answer;
}

async function release(ctx: Context, stream: string, intentId: string): Promise<void> {
  await ctx.idempotency
    .handle(stream, (state) => ({
      events:
        state && state.intent_id === intentId && !state.response
          ? [{ type: 'idempotency.released' as const, data: { intent_id: intentId, at: ctx.now() } }]
          : [],
      result: undefined,
    }))
    .catch(() => undefined);
}

/** Dry-runs a transfer through the same evaluation as the real one; appends nothing. */
export async function simulate(ctx: Context, caller: Caller, body: SimulateRequest) {
  if (body.to !== undefined) checkRecipient(body.to);
  const amount = parseAmount(body.amount);
  const agent = await ctx.agents.load(streams.agent(caller.agentId));
  if (!acceptsKey(agent.state, caller.keyDigest)) throw new ServiceError('unauthorized');
  const group = await ctx.groups.load(streams.group(agent.state.groupId));
  const token = resolveToken(ctx.chain.tokens, body.mint, group.state.baseMint);
  const entry = body.to === undefined ? undefined : group.state.entries.get(body.to);
  const budget =
    entry?.type === 1 ? (await ctx.budgets.load(streams.budget(entry.entryId))).state : undefined;
  const sim = simulateTransfer(
    {
      intent_id: 'simulation',
      amount,
      value: amount,
      mint: token.mint,
      decimals: token.decimals,
      ...(body.to !== undefined && { counterparty: body.to }),
      now: ctx.now(),
    },
    { group: group.state, agent: agent.state, ...(budget && { budget }) },
  );
  return {
    would_succeed: sim.would_succeed,
    daily_remaining: sim.daily_remaining,
    hourly_tx_remaining: sim.hourly_tx_remaining,
    estimated_fee: sim.estimated_fee,
    ...(sim.reason !== undefined && { reason: sim.reason }),
  };
}
