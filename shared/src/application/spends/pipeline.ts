/**
 * The spend pipeline: every spend operation (transfer, swap, deposit, withdraw) goes through it.
 *
 *   1. The idempotency key is claimed (or its answer replayed, or its running operation waited on);
 *      for an operation that asks nothing outside, with the decision instead (below).
 *   2. The operation says what it asks (kind.ask): amount, value in the base token, counterparty.
 *   3. The decision is made on the write model: the group, the agent, and for a budgeted recipient
 *      (or an entry with a daily limit of its own) the entry's budget stream, each read with its
 *      revision and appended to with that revision expected.
 *      A conflict means another decision got there first: read again, decide again (withPatience).
 *      So however many requests and API instances decide at once, no limit or budget is exceeded.
 *   4. The accepted intent is executed by an executor (workers/executor); this waits for its outcome
 *      in the log and answers with kind.answer, or with the failure's code. It does not wait for the
 *      read views: a read waits for the agent's own last write instead (services/api state/freshness.ts),
 *      so a projector that is down slows no spend.
 *
 * A held spend (domain/approval.ts) is decided and reserved the same way, then its approval is
 * requested in the group's approvals stream; the agent is answered 409 `approval_required` and the
 * key stays open: a retry answers `approval_required` while the approval is pending, then the outcome
 * (the executor runs it once approved; a rejection or an expiry fails it) like any other retry.
 *
 * Order of appends for an intent: the idempotency key's claim; then the decision; then (the executor)
 * the submission, the outcome and for a budgeted recipient the budget's settlement. The answer of a
 * confirmed intent is not appended under the key: it is derived from the acceptance and the outcome,
 * by this request and by any retry, which records it then (a refusal is recorded at once).
 *
 * Where the ask may call out (a quote, an x402 resource), the claim is an append of its own, made
 * before `kind.ask`: a parallel duplicate must find the key claimed while it does, and wait for the
 * first request instead of asking and deciding too. Where the ask calls nothing outside
 * (`kind.localAsk`: a transfer in the base token) and the store appends atomically, a key this process
 * knows nothing of (a new key, almost always) is claimed in the decision's own append instead: one
 * append fewer. A duplicate at the same moment asks and decides too, and one of the two appends lands:
 * the other fails on the key's stream, lands nothing, and goes the first way (`KeyTaken`), waiting for
 * the intent that did. A refusal before the decision's append claims the key and records the refusal
 * in one append.
 *
 * The decision for a budgeted recipient (or an entry with a daily limit: domain/budget.ts `reservesOn`;
 * an entry with neither is never read) appends to two streams, the budget's (the reservation) and the
 * agent's (the acceptance, or the block with the release of an earlier reservation). Where the store
 * appends to several streams atomically (PostgreSQL, PGlite: `appendAtomically`), both go in one
 * append, each at the revision the decision read: a conflict on either lands neither, and the
 * decision is made again. Where it cannot (EventStoreDB), the budget's first, then the agent's:
 * deciding again for the same intent is safe (its own reservation counts for it); if it is then
 * blocked, the reservation is released. Whatever fails between the reservation and the acceptance (a
 * conflict past the patience, the store refusing the append, anything) releases the reservation,
 * unless the log shows the intent accepted after all.
 *
 * A group with limits of its own (domain/group-limits.ts) adds its spends stream to the same append,
 * the same way: the intent's count beside its acceptance (on EventStoreDB, first, and released if the
 * acceptance fails). Its agents' decisions take turns on that stream in this process; a group without
 * limits never reads it.
 */
import type { Caller } from '../caller';
import { acceptsKey } from '../../domain/agent';
import { approvalRule, decideRequestApproval, statusAt } from '../../domain/approval';
import { reservesOn } from '../../domain/budget';
import { decideIntent, simulateIntent, type IntentCommand, type Simulation } from '../../domain/intent';
import {
  decodeEvent,
  streams,
  type Action,
  type AgentEvent,
  type BlockCode,
  type IntentData,
  type X402PaymentRefused,
} from '../../domain/events';
import type { AllowEntry, GroupState } from '../../domain/group';
import { hasGroupLimits } from '../../domain/group-limits';
import type { AgentState } from '../../domain/agent';
import { requestFingerprint } from '../../domain/idempotency';
import { ERROR_CATALOGUE, ServiceError, isErrorCode } from '../../errors';
import { WrongExpectedRevision, type RecordedEvent } from '../../event-store/port';
import { SLOT_TARGET_MS } from '../../chain/port';
import { releaseGroupCount, settleReservation } from '../budgets';
import { afterStop } from '../freeze';
import type { Context } from '../context';
import type { Outcome, OutcomeWaiter } from '../outcomes';
import { appendTogether, withPatience, type Loaded } from '../repository';
import { inSpan } from '../../tracing/spans';
import { paymentUnsettled } from '../../x402/requirements';
import {
  KeyTaken,
  answered,
  claimKey,
  complete,
  freeKey,
  release,
  stageClaim,
  type Answer,
  type FreeKey,
} from './idempotency';
import { approvalOf, expireApproval, expireHeld, followDecision } from '../approvals';
import type { Ask, IntentOf, SpendKind, SpendRequest } from './kind';

export type { Answer };

/** Runs one spend operation under the limits, idempotently: one operation per (agent, key), its answer replayed. */
export async function spend<Req extends SpendRequest>(
  ctx: Context,
  waiter: OutcomeWaiter,
  caller: Caller,
  kind: SpendKind<Req>,
  req: Req,
): Promise<Answer> {
  const fingerprint = requestFingerprint(kind.action, req);
  // What the decision is made on is read while the key is claimed (two round trips at once, not in turn).
  const model = readModel(ctx, caller);
  model.catch(() => undefined); // not needed when the key answers by itself: a replay, a wait
  const stream = streams.idempotency(caller.agentId, req.idempotency_key);
  const base = { ctx, waiter, caller, kind, req, model, stream };
  // A new key for an operation whose ask calls nothing outside: claimed in the decision's own append.
  const free =
    ctx.store.appendAtomically && kind.localAsk?.(req) ? freeKey(ctx, stream, fingerprint) : undefined;
  if (free) {
    try {
      return await runOnce({ ...base, intentId: free.intentId, free });
    } catch (err) {
      if (!(err instanceof KeyTaken)) throw err;
    }
  }
  const claim = await claimKey(ctx, stream, fingerprint, kind.answerAmounts, free !== undefined);
  if (claim.kind === 'replay') return answered(claim.answer);
  const run: Run<Req> = { ...base, intentId: claim.intentId };
  if (claim.kind === 'run' && !claim.takenOver) return runOnce(run);
  // A claim another request holds, or one abandoned by an instance that died before deciding.
  const known = await intentRecord(ctx, caller.agentId, claim.intentId);
  if (claim.kind === 'run' && !known.accepted && !known.blocked) return runOnce(run);
  return answerWhenSettled(run, known);
}

interface Run<Req extends SpendRequest> {
  ctx: Context;
  waiter: OutcomeWaiter;
  caller: Caller;
  kind: SpendKind<Req>;
  req: Req;
  /** The agent's stream and its group's, as the request read them. */
  model: Promise<WriteModel>;
  /** The idempotency stream and the intent the claim names. */
  stream: string;
  intentId: string;
  /** The key while not claimed yet: it is claimed in the decision's append (`kind.localAsk`). */
  free?: FreeKey;
}

async function runOnce<Req extends SpendRequest>(run: Run<Req>): Promise<Answer> {
  const { ctx, kind, stream, intentId } = run;
  let accepted = false;
  let answer: Answer;
  try {
    const { wait, intent } = await inSpan('spend.decide', () => decide(run));
    accepted = true;
    if (intent.held) throw heldAnswer(intent.held);
    const outcome = await wait;
    if (!outcome)
      throw new ServiceError(
        'idempotency_in_progress',
        `The ${kind.action} is still being executed; retry the same request to get its result.`,
      );
    if (outcome.type === 'x402.payment_refused') throw await unsettledAnswer(ctx, outcome.data);
    answer = answerFor(kind, intent, outcome);
  } catch (err) {
    if (err instanceof KeyTaken) throw err;
    if (err instanceof ServiceError && OPEN_CODES.has(err.code)) throw err;
    if (err instanceof ServiceError && err.status < 500) {
      await complete(ctx, stream, intentId, { status: err.status, body: err.toBody() }, run.free);
      throw err;
    }
    // A failure before the intent was accepted: free the key, nothing happened; retrying is safe. Unless
    // the acceptance landed all the same (its append failed on the way back): then the key stays
    // claimed, and a retry answers that intent's outcome instead of deciding a second one. When even
    // that cannot be read, the claim stays too; a retry takes it over once stale, with the same intent.
    if (!accepted && !(await acceptedAfterAll(ctx, run.caller.agentId, intentId)))
      await release(ctx, stream, intentId);
    throw err;
  }
  // A confirmed spend's answer is not recorded under the key: the log holds it already (the
  // acceptance and the outcome in the agent's stream), and a retry derives the same answer from them
  // (answerWhenSettled), recording it then. One append fewer for every spend not asked again. A
  // refusal (a failed outcome) is recorded at once, as every refusal: a retry of it writes nothing.
  return answer.status < 400 ? answered(answer) : complete(ctx, stream, intentId, answer);
}

/** Answers that leave the key open: the outcome is yet to come, a retry asks again. */
const OPEN_CODES: ReadonlySet<string> = new Set([
  'idempotency_in_progress',
  'approval_required',
  'x402_payment_unsettled',
]);

/**
 * What the agent is told while an x402 payment the resource refused can still land (its blockhash is
 * valid): the refusal, and when to ask again (the executor settles the intent once it can no longer).
 */
async function unsettledAnswer(ctx: Context, refused: X402PaymentRefused['data']): Promise<ServiceError> {
  const last = BigInt(refused.last_valid_block_height);
  const left = await ctx.chain.blockHeight().then(
    (height) => (last >= height ? last - height + 1n : 0n),
    () => 150n,
  );
  const seconds = Math.max(1, Math.ceil((Number(left) * SLOT_TARGET_MS) / 1000) + 1);
  return paymentUnsettled(refused.refusal, refused.last_valid_block_height, seconds);
}

/** What the agent is told while its spend waits for a person. */
const heldAnswer = (held: NonNullable<IntentData['held']>): ServiceError =>
  new ServiceError(
    'approval_required',
    `The spend is held for approval ${held.approval_id} until ${new Date(held.expires_at).toISOString()}; retry the same request (same idempotency key) to get its result.`,
  );

/** Decides on the write model; an accepted intent comes back with the wait for its outcome. */
async function decide<Req extends SpendRequest>(
  run: Run<Req>,
): Promise<{ wait: Promise<Outcome | undefined>; intent: IntentData }> {
  const { ctx, waiter, caller, kind, req, intentId } = run;
  const agentStream = streams.agent(caller.agentId);
  const { group: groupAtAsk } = await run.model;
  const ask = await kind.ask(ctx, req, groupAtAsk.state);
  let reservedOn: AllowEntry | undefined;
  let countedOn: string | undefined;
  let attempts = 0;
  const together = ctx.store.appendAtomically !== undefined;
  // A group with limits of its own: its agents' decisions in this process take turns on its spends
  // stream too (all append to it), so a conflict there comes from another instance, as on the agent's.
  const limitedAtAsk = hasGroupLimits(groupAtAsk.state.limits)
    ? streams.groupSpends(groupAtAsk.state.groupId)
    : undefined;
  const inGroupTurn = <R>(work: () => Promise<R>): Promise<R> =>
    limitedAtAsk ? ctx.groupSpends.exclusive(limitedAtAsk, work) : work();

  // The guard froze the agent with its refusal: what the agent had open then stops as an admin's freeze
  // stops it, once this decision's turn on the agent is over (the stop settles on the agent's stream).
  let stopped: AgentEvent[] | undefined;
  try {
    return await decideInTurn();
  } finally {
    if (stopped)
      await afterStop(ctx, groupAtAsk.state.groupId, caller.agentId, stopped, 'agent frozen by the guard');
  }

  // One decision at a time per agent in this process; a conflict then comes from another instance.
  function decideInTurn() {
    return ctx.agents.exclusive(agentStream, () =>
      inGroupTurn(() =>
        withPatience(async () => {
          // The first decision is made on what this request read (with what this process appended since):
          // its append expects that revision, so if another process wrote meanwhile it conflicts, and the
          // next attempt reads again.
          const fresh = attempts++ > 0;
          const agent = fresh ? await ctx.agents.load(agentStream) : await ctx.agents.recall(agentStream);
          if (!acceptsKey(agent.state, caller.keyDigest)) throw new ServiceError('unauthorized');
          const group = fresh ? await ctx.groups.load(streams.group(agent.state.groupId)) : groupAtAsk;
          const cmd = command(ctx, kind, req, ask, intentId);
          const entry = group.state.entries.get(cmd.counterparty!);
          const budgetStream =
            entry && reservesOn(entry, kind.action) ? streams.budget(entry.entryId) : undefined;
          const groupStream = hasGroupLimits(group.state.limits)
            ? streams.groupSpends(group.state.groupId)
            : undefined;
          // Who was approved before matters only when the rule holds new recipients.
          const [budget, groupSpends, approvals] = await Promise.all([
            budgetStream ? ctx.budgets.load(budgetStream) : undefined,
            groupStream ? ctx.groupSpends.load(groupStream) : undefined,
            approvalRule(group.state, agent.state).newRecipients
              ? ctx.approvals.load(streams.approvals(group.state.groupId))
              : undefined,
          ]);
          const decision = decideIntent(cmd, {
            group: group.state,
            agent: agent.state,
            ...(budget && { budget: budget.state }),
            ...(approvals && { approvals: approvals.state }),
            ...(groupSpends && { groupSpends: groupSpends.state }),
          });
          if (decision.accepted && decision.agentEvents.length === 0) {
            // Accepted already (a request that took over a stale claim raced another): wait for its outcome.
            const wait = waiter.expect(intentId, ctx.settings.outcomeTimeoutMs);
            const known = await intentRecord(ctx, caller.agentId, intentId);
            if (known.outcome) wait.cancel();
            return {
              wait: known.outcome ? Promise.resolve(known.outcome) : wait.outcome,
              intent: acceptanceOf(known, intentId),
            };
          }
          // The budget's events and the agent's decision: in one atomic append where the store has it,
          // so a reservation never lands without its acceptance and nothing is left to undo; else the
          // budget's first, and a reservation whose acceptance then fails is released below.
          const appendDecision = async () => {
            const budgetEvents = budgetStream && budget ? decision.budgetEvents : [];
            const groupEvents = groupStream && groupSpends ? decision.groupEvents : [];
            const free = run.free;
            if (together) {
              await appendTogether(ctx.store, [
                ...(budgetEvents.length > 0 ? [ctx.budgets.stage(budgetStream!, budget!, budgetEvents)] : []),
                ...(groupEvents.length > 0
                  ? [ctx.groupSpends.stage(groupStream!, groupSpends!, groupEvents)]
                  : []),
                ...(free ? [stageClaim(ctx, free)] : []),
                ctx.agents.stage(agentStream, agent, decision.agentEvents),
              ]).catch((err: unknown) => {
                throw free && err instanceof WrongExpectedRevision && err.stream === free.stream
                  ? new KeyTaken(free.stream)
                  : err;
              });
              run.free = undefined; // claimed
              return;
            }
            if (budgetEvents.length > 0) {
              await ctx.budgets.append(budgetStream!, budget!, budgetEvents);
              reservedOn = budgetEvents[0]!.type === 'budget.reserved' ? entry : undefined;
            }
            if (groupEvents.length > 0) {
              await ctx.groupSpends.append(groupStream!, groupSpends!, groupEvents);
              countedOn = groupEvents[0]!.type === 'group.spend_counted' ? group.state.groupId : undefined;
            }
            await ctx.agents.append(agentStream, agent, decision.agentEvents);
            reservedOn = undefined;
            countedOn = undefined;
          };
          if (!decision.accepted) {
            await appendDecision();
            if (decision.agentEvents.some((e) => e.type === 'agent.frozen')) stopped = decision.agentEvents;
            throw new ServiceError(decision.code!, decision.message);
          }
          const intent = decision.agentEvents[0]!.data as IntentData;
          const request = decision.approval;
          if (request) {
            // Held: accepted and reserved, then its approval is requested (appended after the acceptance, so
            // an approval never names an intent that does not exist; the expiry scheduler covers a gap).
            await appendDecision();
            await ctx.approvals.handle(streams.approvals(request.group_id), (state) => ({
              events: decideRequestApproval(request, state),
              result: undefined,
            }));
            return { wait: Promise.resolve(undefined), intent };
          }
          const wait = waiter.expect(intentId, ctx.settings.outcomeTimeoutMs);
          try {
            await appendDecision();
          } catch (err) {
            wait.cancel();
            throw err;
          }
          return { wait: wait.outcome, intent };
        }),
      ).catch(async (err: unknown) => {
        if (reservedOn || countedOn)
          await releaseUnaccepted(ctx, caller.agentId, intentId, { entry: reservedOn, groupId: countedOn });
        if (err instanceof WrongExpectedRevision)
          throw new ServiceError(
            'service_unavailable',
            'Too many decisions on this agent at once across instances; nothing was done, retry shortly.',
          );
        throw err;
      }),
    );
  }
}

interface WriteModel {
  agent: Loaded<AgentState>;
  group: Loaded<GroupState>;
}

/** The agent's stream (its key checked) and its group's, read fresh. */
async function readModel(ctx: Context, caller: Caller): Promise<WriteModel> {
  const agent = await ctx.agents.load(streams.agent(caller.agentId));
  if (!acceptsKey(agent.state, caller.keyDigest)) throw new ServiceError('unauthorized');
  return { agent, group: await ctx.groups.load(streams.group(agent.state.groupId)) };
}

/**
 * Releases a reservation whose intent was never accepted. Only when the log shows no acceptance: an
 * append that failed on the way back may still have landed, and its reservation must then stay.
 * When even that cannot be read, the reservation stays too, and a retry of the request (which takes
 * the abandoned claim over with the same intent) decides it again.
 */
async function releaseUnaccepted(
  ctx: Context,
  agentId: string,
  intentId: string,
  on: { entry?: AllowEntry | undefined; groupId?: string | undefined },
) {
  try {
    const known = await intentRecord(ctx, agentId, intentId);
    if (known.accepted) return;
    if (on.entry) await settleReservation(ctx, on.entry, intentId, false);
    if (on.groupId) await releaseGroupCount(ctx, on.groupId, intentId);
  } catch {
    // the store is away: see above
  }
}

function command<Req extends SpendRequest>(
  ctx: Context,
  kind: SpendKind<Req>,
  req: Req,
  ask: Ask,
  intentId: string,
): IntentCommand {
  return {
    intent_id: intentId,
    action: kind.action,
    amount: ask.amount,
    value: ask.value,
    mint: ask.mint,
    decimals: ask.decimals,
    counterparty: ask.counterparty,
    ...(ask.memo !== undefined && { memo: ask.memo }),
    ...(ask.memo_sha256 !== undefined && { memo_sha256: ask.memo_sha256 }),
    ...(ask.task_id !== undefined && { task_id: ask.task_id }),
    ...(ask.params !== undefined && { params: ask.params }),
    ...(ask.x402 !== undefined && { x402: ask.x402 }),
    idempotency_key: req.idempotency_key,
    now: ctx.now(),
  };
}

/** The answer of a settled intent, from its acceptance and its outcome. */
function answerFor<Req extends SpendRequest>(
  kind: SpendKind<Req>,
  accepted: IntentData,
  outcome: Exclude<Outcome, { type: 'x402.payment_refused' }>,
): Answer {
  if (outcome.type === 'intent.failed') {
    const code = isErrorCode(outcome.data.code) ? outcome.data.code : 'internal_error';
    const err = new ServiceError(code, outcome.data.message || ERROR_CATALOGUE[code].message);
    return { status: err.status, body: err.toBody() };
  }
  return { status: 200, body: kind.answer(accepted as IntentOf<typeof kind.action>, outcome.data) };
}

/** What the agent's stream holds about one intent: its acceptance or its block, and its outcome. */
interface IntentRecord {
  accepted?: IntentData;
  blocked?: { code: BlockCode; message: string };
  /** Its outcome; or, while none, an x402 payment refused that may still land. */
  outcome?: Outcome;
}

/**
 * The intent's events in the agent's stream: found by their correlation id (the intent's) where the
 * store has that index, so a retry does not read an agent's whole history; the whole stream when that
 * finds no decision (a log written before events carried it).
 */
async function intentEvents(ctx: Context, agentId: string, intentId: string): Promise<RecordedEvent[]> {
  const stream = streams.agent(agentId);
  const correlated = ctx.store.readCorrelated
    ? (await ctx.store.readCorrelated(intentId)).filter((e) => e.stream === stream)
    : [];
  const decided = correlated.some((e) => e.type === 'intent.accepted' || e.type === 'intent.blocked');
  return decided ? correlated : ctx.store.readStream(stream);
}

async function intentRecord(ctx: Context, agentId: string, intentId: string): Promise<IntentRecord> {
  const record: IntentRecord = {};
  for (const recorded of await intentEvents(ctx, agentId, intentId)) {
    const e = decodeEvent(recorded);
    if (!e || !('intent_id' in e.data) || e.data.intent_id !== intentId) continue;
    if (e.type === 'intent.accepted') record.accepted ??= e.data;
    else if (e.type === 'intent.blocked') record.blocked ??= e.data;
    else if (e.type === 'intent.confirmed' || e.type === 'intent.failed') record.outcome = e;
    else if (e.type === 'x402.payment_refused') record.outcome ??= e;
  }
  return record;
}

/** Whether the log shows the intent accepted (true when the log cannot be read: nothing is let go then). */
const acceptedAfterAll = (ctx: Context, agentId: string, intentId: string): Promise<boolean> =>
  intentRecord(ctx, agentId, intentId).then(
    (known) => known.accepted !== undefined,
    () => true,
  );

function acceptanceOf(record: IntentRecord, intentId: string): IntentData {
  if (!record.accepted) throw new Error(`intent ${intentId} was not accepted`);
  return record.accepted;
}

/** A retry of a request whose intent is running: wait for it (a while), then answer as the first would have. */
async function answerWhenSettled<Req extends SpendRequest>(
  run: Run<Req>,
  known: IntentRecord,
): Promise<Answer> {
  const { ctx, waiter, caller, kind, stream, intentId } = run;
  if (known.blocked) {
    // Blocked, and the instance that decided it died before recording the answer: answer it now.
    const err = new ServiceError(known.blocked.code, known.blocked.message);
    return complete(ctx, stream, intentId, { status: err.status, body: err.toBody() });
  }
  if (known.accepted?.held && !known.outcome && (await stillHeld(ctx, known.accepted)))
    throw heldAnswer(known.accepted.held);
  const wait = waiter.expect(intentId, ctx.settings.outcomeTimeoutMs);
  // Read again under the wait: the outcome may have landed since the first read.
  const now = known.outcome ? known : await intentRecord(ctx, caller.agentId, intentId);
  const outcome = now.outcome ?? (await wait.outcome);
  wait.cancel();
  if (!outcome) throw new ServiceError('idempotency_in_progress');
  if (outcome.type === 'x402.payment_refused') throw await unsettledAnswer(ctx, outcome.data);
  const intent = acceptanceOf(
    now.accepted ? now : await intentRecord(ctx, caller.agentId, intentId),
    intentId,
  );
  return complete(ctx, stream, intentId, answerFor(kind, intent, outcome));
}

/**
 * Whether a held intent still waits for a person. Decided otherwise, its outcome is (or is about to be)
 * in the log: a rejection or an expiry is followed here too (idempotent), so the answer never waits
 * for the scheduler or the executor; an approval leaves the outcome to the executor.
 */
async function stillHeld(ctx: Context, intent: IntentData): Promise<boolean> {
  const held = intent.held!;
  const record = await approvalOf(ctx, intent.group_id, held.approval_id);
  const now = ctx.now();
  if (!record) {
    if (now < held.expires_at) return true;
    await expireHeld(ctx, intent);
    return false;
  }
  const status = statusAt(record, now);
  if (status === 'pending') return true;
  if (record.status === 'pending') await expireApproval(ctx, intent.group_id, held.approval_id);
  else await followDecision(ctx, record);
  return false;
}

/** What a dry run asks: a spend's ask, its counterparty optional. */
export type DryRunAsk = Omit<Ask, 'counterparty'> & { counterparty?: string };

/** Dry-runs a transfer through the same evaluation as the real one; appends nothing. */
export async function simulate(
  ctx: Context,
  caller: Caller,
  asks: (group: GroupState) => Promise<DryRunAsk>,
) {
  const sim = await dryRun(ctx, caller, 'transfer', asks);
  return {
    would_succeed: sim.would_succeed,
    daily_remaining: sim.daily_remaining,
    hourly_tx_remaining: sim.hourly_tx_remaining,
    estimated_fee: sim.estimated_fee,
    ...(sim.reason !== undefined && { reason: sim.reason }),
    ...(sim.held_by !== undefined && { held_by: sim.held_by }),
  };
}

/** Dry-runs an intent of any action through the same evaluation as the real one, every check reported; appends nothing. */
export async function dryRun(
  ctx: Context,
  caller: Caller,
  action: Action,
  asks: (group: GroupState) => Promise<DryRunAsk>,
): Promise<Simulation> {
  const { agent, group } = await readModel(ctx, caller);
  const ask = await asks(group.state);
  const entry = ask.counterparty === undefined ? undefined : group.state.entries.get(ask.counterparty);
  const budget =
    entry && reservesOn(entry, action)
      ? (await ctx.budgets.load(streams.budget(entry.entryId))).state
      : undefined;
  const approvals = approvalRule(group.state, agent.state).newRecipients
    ? (await ctx.approvals.load(streams.approvals(group.state.groupId))).state
    : undefined;
  const groupSpends = hasGroupLimits(group.state.limits)
    ? (await ctx.groupSpends.load(streams.groupSpends(group.state.groupId))).state
    : undefined;
  return simulateIntent(
    {
      intent_id: 'simulation',
      action,
      amount: ask.amount,
      value: ask.value,
      mint: ask.mint,
      decimals: ask.decimals,
      ...(ask.counterparty !== undefined && { counterparty: ask.counterparty }),
      now: ctx.now(),
    },
    {
      group: group.state,
      agent: agent.state,
      ...(budget && { budget }),
      ...(approvals && { approvals }),
      ...(groupSpends && { groupSpends }),
    },
  );
}
