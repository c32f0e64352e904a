/**
 * Proposals (docs/governance.md): a change that widens what agents may spend is made only once a
 * quorum of the group's admins has signed it. The route that would make the change checks it applies
 * and records the proposal instead (202); each admin signs its message with its wallet; once the
 * quorum in force is reached (and the governance delay passed) the service executes it as the very
 * events the change makes, each carrying the proposal id. The rules are domain/proposal.ts.
 *
 * The governed actions are a table (GOVERNED_ACTIONS), each row beside its capability (governed.ts):
 * how its change is made and whether it widens. A change an admin asks for goes through `governed`:
 * made at once when it narrows, proposed when it widens. The same function checks a change when it is
 * proposed (nothing appended) and makes it when it executes, so a proposal is only ever made of a
 * change that applied then; one that no longer applies when it is due ends `failed`, with the reason.
 * Secrets a change makes (an invitation code) are in the answer to the signature that executed it,
 * once, and never in the log.
 *
 * Executed exactly once: the change's events and `governance.executed` are appended together, each at
 * the revision it was decided on (appendTogether), so two admins signing at once, or a cancel racing
 * the execution, decide it once. A store that cannot append to two streams at once (EventStoreDB)
 * records the execution first (the proposals stream is the arbiter), then the change: at the revision it
 * was decided on, or, when another flow's event landed on its stream meanwhile, checked again and appended
 * after it (the same events, so the recorded result holds).
 */
import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { authorizeMember, type GovernanceState } from '../domain/governance';
import type { GroupState } from '../domain/group';
import {
  decideCancel,
  decideExecuted,
  decideExpireProposal,
  decideFailed,
  decidePropose,
  decideShowSecret,
  decideSign,
  isDue,
  parseProposalId,
  proposalIdOf,
  proposalsDue,
  proposalView,
  scheduledAt,
  type ProposalStatus,
  type ProposalsState,
} from '../domain/proposal';
import { streams } from '../domain/events';
import type { ProposalAction } from '../contract/operator/governance';
import { ServiceError } from '../errors';
import { WrongExpectedRevision } from '../event-store/port';
import type { Context } from './context';
import type { Change, GovernedAction } from './governed';
import { AGENT_ACTIONS } from './agents';
import { ALLOW_LIST_ACTIONS } from './allow-list';
import { APPROVAL_POLICY_ACTIONS } from './approvals';
import { AUDITOR_ACTIONS } from './audit';
import { EMERGENCY_ACTIONS } from './emergency';
import { FREEZE_ACTIONS } from './freeze';
import { GROUP_ACTIONS } from './groups';
import { MEMBER_ACTIONS } from './members';
import { WEBHOOK_ACTIONS } from './webhooks/subscriptions';
import { GUARD_ACTIONS } from './guard';
import { appendStaged, appendTogether, withPatience, type Loaded } from './repository';

/** Every change a proposal makes, each a row (governed.ts) beside its capability. */
export const GOVERNED_ACTIONS = {
  ...FREEZE_ACTIONS,
  ...MEMBER_ACTIONS,
  ...ALLOW_LIST_ACTIONS,
  ...AGENT_ACTIONS,
  ...APPROVAL_POLICY_ACTIONS,
  ...AUDITOR_ACTIONS,
  ...EMERGENCY_ACTIONS,
  ...GROUP_ACTIONS,
  ...WEBHOOK_ACTIONS,
  ...GUARD_ACTIONS,
} as const satisfies Record<ProposalAction, GovernedAction>;

export type GovernedActionName = ProposalAction;

export type ProposalView = ReturnType<typeof proposalView>;

/** What a change that may widen answers: its own answer (made at once), or the proposal (`202`). */
export type Governed<T = unknown> = { applied: T } | { proposed: ProposalView };

/**
 * A change an admin asks for: made at once when it narrows (or leaves as it is) what agents may spend,
 * a proposal when it widens it (governed.ts `Change.widens`). Bad input
 * and a change that does not apply are refused either way, before anything is recorded.
 */
export async function governed(
  ctx: Context,
  wallet: string,
  groupId: string,
  action: GovernedActionName,
  params: Record<string, unknown>,
): Promise<Governed> {
  const row: GovernedAction = GOVERNED_ACTIONS[action];
  authorizeMember((await groupOf(ctx, groupId)).governance, wallet, 'admin');
  // Judged and made on one state: appended at its revision (or decided again), so a change made
  // meanwhile cannot turn a narrowing one into a widening one.
  const made = await withPatience(async () => {
    const change = await row.change(ctx, groupId, params);
    if (change.widens) return undefined;
    await appendStaged(ctx.store, change.staged);
    return change;
  });
  if (made)
    return { applied: made.afterwards ? await made.afterwards() : withSecret(made.result, made.secret) };
  return { proposed: await propose(ctx, wallet, groupId, action, params) };
}

/** A wallet that signs: an admin's, in process (the demo, the tests). */
export interface AdminSigner {
  readonly address: string;
  sign(message: Uint8Array): Uint8Array;
}

/**
 * What the CLI and the console do for one admin, in process: the change asked by `admin` and, when it
 * is a proposal, signed by it at once. The change's answer (with the secrets it made); a proposal the
 * quorum needs more admins for is a `conflict` saying so.
 */
export async function enactAs(
  ctx: Context,
  admin: AdminSigner,
  groupId: string,
  action: GovernedActionName,
  params: Record<string, unknown>,
): Promise<unknown> {
  const outcome = await governed(ctx, admin.address, groupId, action, params);
  if ('applied' in outcome) return outcome.applied;
  const { proposal_id, message } = outcome.proposed;
  const signature = bs58.encode(admin.sign(Buffer.from(message, 'utf8')));
  const signed = await signProposal(ctx, admin.address, proposal_id, signature);
  if (signed.status !== 'executed')
    throw new ServiceError(
      'conflict',
      `Proposal ${proposal_id} is ${signed.status}: more admins must sign it.`,
    );
  return signed.result;
}

/** The change a proposal makes, checked now; its parameters are what the proposal records. */
export async function propose(
  ctx: Context,
  wallet: string,
  groupId: string,
  action: GovernedActionName,
  params: Record<string, unknown>,
) {
  const group = await groupOf(ctx, groupId);
  authorizeMember(group.governance, wallet, 'admin');
  const proposalId = proposalIdOf(groupId, randomUUID());
  const row: GovernedAction = GOVERNED_ACTIONS[action];
  // It applies now, or this throws: a proposal is only ever made of a valid change.
  await (row.check ?? row.change)(ctx, groupId, params, proposalId);
  const stream = streams.proposals(groupId);
  const state = await ctx.proposals
    .handle(stream, (s) => {
      const events = decidePropose(
        {
          proposal_id: proposalId,
          action,
          params,
          proposed_by: wallet,
          governance: group.governance,
          now: ctx.now(),
        },
        s,
      );
      return { events, result: undefined };
    })
    .then(() => ctx.proposals.peek(stream).state);
  return proposalView(state.proposals.get(proposalId)!, group.governance, ctx.now());
}

/**
 * An admin signs. Once the quorum in force is reached and no delay is asked, the proposal executes in
 * this request: the answer is the executed proposal with its result.
 */
export async function signProposal(ctx: Context, wallet: string, proposalId: string, signature: string) {
  const { groupId, stream } = located(proposalId);
  const group = await groupOf(ctx, groupId);
  await ctx.proposals.handle(stream, (state) => ({
    events: decideSign(
      { proposal_id: proposalId, wallet, signature, governance: group.governance, now: ctx.now() },
      state,
    ),
    result: undefined,
  }));
  const secret = await executeIfDue(ctx, proposalId, wallet);
  const view = stillOpen(await answer(ctx, proposalId, wallet));
  // The secrets the change made (an invitation code, a key): to this admin, in this answer, once.
  return secret && view.status === 'executed' ? { ...view, result: withSecret(view.result, secret) } : view;
}

/** Why a change no longer applies, in words: its message, and each field it names (`/url: ...`). */
const failure = (err: ServiceError) =>
  [err.message, ...(err.details ?? []).map((d) => `${d.path}: ${d.issue}`)].join(' ');

/** An answer with the secrets a change made (never recorded) beside what it recorded. */
const withSecret = (result: unknown, secret?: Record<string, unknown>) =>
  secret ? { ...(result as object), ...secret } : result;

/** Any admin cancels a pending or ready proposal. */
export async function cancelProposal(ctx: Context, wallet: string, proposalId: string, reason?: string) {
  const { groupId, stream } = located(proposalId);
  const group = await groupOf(ctx, groupId);
  await ctx.proposals.handle(stream, (state) => ({
    events: decideCancel(
      {
        proposal_id: proposalId,
        wallet,
        ...(reason !== undefined && { reason }),
        governance: group.governance,
        now: ctx.now(),
      },
      state,
    ),
    result: undefined,
  }));
  return stillOpen(await answer(ctx, proposalId, wallet));
}

/** A signature or a cancel on a proposal past its time recorded its expiry: the caller is told so. */
function stillOpen<V extends { status: ProposalStatus }>(view: V): V {
  if (view.status === 'expired')
    throw new ServiceError('conflict', 'The proposal expired before it executed; nothing changed.');
  return view;
}

/**
 * The secrets a proposal's change made (an invitation code), for its proposer, once, when the
 * scheduler executed it after its delay (a signature that executed it showed them in its answer).
 * Made again from the proposal (governed.ts `secretOf`), never read from a store; that it was shown
 * is recorded (`governance.secret_shown`), so it is shown once, whichever instance is asked.
 */
export async function readProposalSecret(ctx: Context, wallet: string, proposalId: string) {
  const { groupId, stream } = located(proposalId);
  const group = await groupOf(ctx, groupId);
  authorizeMember(group.governance, wallet, 'admin');
  const record = await ctx.proposals.handle(stream, (state) => {
    const found = state.proposals.get(proposalId);
    const row: GovernedAction | undefined =
      found && GOVERNED_ACTIONS[found.proposed.action as GovernedActionName];
    const events = decideShowSecret(
      { proposal_id: proposalId, wallet, makesSecrets: row?.secretOf !== undefined, now: ctx.now() },
      state,
    );
    return { events, result: found! };
  });
  const row: GovernedAction = GOVERNED_ACTIONS[record.proposed.action as GovernedActionName];
  return { proposal_id: proposalId, ...row.secretOf!(ctx, groupId, proposalId, record.closed!.result) };
}

/** One proposal, for any member of its group. */
export async function getProposal(ctx: Context, wallet: string, proposalId: string) {
  return answer(ctx, proposalId, wallet);
}

/** The group's proposals, newest first, by status when asked; for any member. */
export async function listProposals(ctx: Context, wallet: string, groupId: string, status?: ProposalStatus) {
  const group = await groupOf(ctx, groupId);
  authorizeMember(group.governance, wallet, 'read');
  const { state } = await ctx.proposals.load(streams.proposals(groupId));
  const now = ctx.now();
  const proposals = [...state.proposals.values()]
    .map((record) => proposalView(record, group.governance, now))
    .filter((p) => status === undefined || p.status === status)
    .reverse();
  return { proposals };
}

/**
 * The scheduler's step for one group (expiry.ts `startProposalScheduler`): executes every proposal
 * whose quorum and delay are in, records every one past its time as expired; answers when next to
 * look (the earliest readiness or expiry of what is still open), none when nothing is.
 */
export async function tendProposals(ctx: Context, groupId: string): Promise<number | undefined> {
  const stream = streams.proposals(groupId);
  const [{ state }, group] = await Promise.all([ctx.proposals.load(stream), groupOf(ctx, groupId)]);
  const now = ctx.now();
  const { execute, expire } = proposalsDue(state, group.governance, now);
  for (const id of execute) await executeIfDue(ctx, id);
  for (const id of expire)
    await ctx.proposals.handle(stream, (s) => ({
      events: decideExpireProposal({ proposal_id: id, now }, s),
      result: undefined,
    }));
  let next: number | undefined;
  for (const record of (await ctx.proposals.load(stream)).state.proposals.values()) {
    if (record.closed) continue;
    const at = Math.min(record.proposed.expires_at, scheduledAt(record, group.governance) ?? Infinity);
    next = next === undefined ? at : Math.min(next, at);
  }
  return next;
}

/**
 * Executes the proposal if it is due: the change and its record together, once. A change that no
 * longer applies ends the proposal `failed`, with the reason. Nothing when it is not due. Answers the
 * secrets the change made, if this call executed it (only the caller ever sees them).
 */
export async function executeIfDue(
  ctx: Context,
  proposalId: string,
  /** The signer whose request executes it, shown the secrets it makes; none: the scheduler. */
  signer?: string,
): Promise<Record<string, unknown> | undefined> {
  const { groupId, stream } = located(proposalId);
  return ctx.proposals.exclusive(stream, () =>
    withPatience(async () => {
      const [proposals, group] = await Promise.all([ctx.proposals.load(stream), groupOf(ctx, groupId)]);
      const record = proposals.state.proposals.get(proposalId);
      const now = ctx.now();
      if (!record || !isDue(record, group.governance, now)) return undefined;
      let change: Change;
      const action: GovernedAction | undefined =
        GOVERNED_ACTIONS[record.proposed.action as GovernedActionName];
      try {
        if (!action)
          throw new ServiceError('conflict', `${record.proposed.action} is not a governed action.`);
        change = await action.change(ctx, groupId, record.proposed.params, proposalId);
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status >= 500) throw err;
        await ctx.proposals.append(
          stream,
          proposals,
          decideFailed({ proposal_id: proposalId, reason: failure(err), now }, proposals.state),
        );
        return undefined;
      }
      const executed = decideExecuted(
        {
          proposal_id: proposalId,
          result: change.result,
          ...(change.secret && signer !== undefined && { secret_shown_to: signer }),
          governance: group.governance,
          now,
        },
        proposals.state,
      );
      const recheck = () => (action.check ?? action.change)(ctx, groupId, record.proposed.params, proposalId);
      await appendExecution(ctx, stream, proposals, executed, change, recheck);
      // What the change does beyond its events (a drain), once recorded: its answer with the secrets.
      return change.afterwards
        ? { ...change.secret, ...((await change.afterwards()) as object) }
        : change.secret;
    }),
  );
}

async function appendExecution(
  ctx: Context,
  stream: string,
  proposals: Loaded<ProposalsState>,
  executed: ReturnType<typeof decideExecuted>,
  change: Change,
  /** Checks, on its stream as it stands now, that the change still applies (throws if not). */
  recheck: () => Promise<unknown>,
): Promise<void> {
  const record = ctx.proposals.stage(stream, proposals, executed);
  if (ctx.store.appendAtomically) return appendTogether(ctx.store, [change.staged, record]);
  // One stream at a time: the execution's record first (the arbiter), then the change.
  await ctx.proposals.append(stream, proposals, executed);
  await appendAfterRecord(ctx, change, recheck);
}

/**
 * The change of a proposal whose execution is recorded already (a store without atomic appends). It is
 * appended at the revision it was decided on; should its stream have moved meanwhile (another flow's
 * event), the change is checked again on the stream as it now stands and the very events the record
 * names are appended after what landed: they are never decided anew, so its result and secrets stay
 * those recorded. A change that no longer applies then throws its check's error.
 */
async function appendAfterRecord(ctx: Context, change: Change, recheck: () => Promise<unknown>) {
  const { append } = change.staged;
  let expected = append.expected;
  for (let attempt = 1; ; attempt++) {
    try {
      const landed = await ctx.store.append(append.stream, append.events, expected);
      if (expected === append.expected) change.staged.landed(landed);
      else change.staged.failed(undefined); // the repository reads the stream again
      return;
    } catch (err) {
      change.staged.failed(err);
      if (!(err instanceof WrongExpectedRevision) || attempt >= 10) throw err;
      await recheck();
      expected = err.actual ?? 'no_stream';
    }
  }
}

async function answer(ctx: Context, proposalId: string, wallet: string) {
  const { groupId, stream } = located(proposalId);
  const group = await groupOf(ctx, groupId);
  authorizeMember(group.governance, wallet, 'read');
  const record = (await ctx.proposals.load(stream)).state.proposals.get(proposalId);
  if (!record) throw new ServiceError('not_found', 'No such proposal.');
  return proposalView(record, group.governance, ctx.now());
}

function located(proposalId: string) {
  const parsed = parseProposalId(proposalId);
  if (!parsed) throw new ServiceError('not_found', 'No such proposal.');
  return { groupId: parsed.groupId, stream: streams.proposals(parsed.groupId) };
}

async function groupOf(ctx: Context, groupId: string): Promise<GroupState & { governance: GovernanceState }> {
  const { state } = await ctx.groups.load(streams.group(groupId));
  if (!state.exists) throw new ServiceError('not_found', 'No such group.');
  return state;
}
