/**
 * One agent: registration (only the API key's digest is kept), limits, key rotation, revocation,
 * freezing, emergency withdrawal, and the intents it has in the rolling windows. Pure: no I/O, no clock.
 */
import Big from 'big.js';
import { ServiceError } from '../errors';
import type { Action, AgentEmergencyWithdraw, AgentEvent, FreezeCode } from './events';
import type { GroupState } from './group';
import { limitsFromData, limitsToData, mergeLimits, type Limits, type LimitsInput } from './limits';
import { sameDigest } from './secrets';
import { DAY_MS, HOUR_MS } from './time';
import type { Fold } from './decider';
import { Windows, type WindowItem } from './windows';
import { emptyGuardHistory, evolveGuardHistory, type GuardHistory } from './guard';

export type { WindowItem } from './windows';

export type AgentStatus = 'unregistered' | 'active' | 'revoked';

export interface AgentState {
  status: AgentStatus;
  agentId: string;
  groupId: string;
  limits: Limits;
  apiKeyHash: string;
  /** Digests of the keys rotated out: a refused spend with one is this agent's, and is recorded. */
  retiredKeyHashes: readonly string[];
  /** When a spend with a refused key (revoked, or rotated out) was last recorded. */
  keyRefusedAt?: number;
  /** Intents young enough to matter for a window (plus a margin for clock skew), or still open. */
  intents: Windows;
  /** When its latest operation was accepted, however long ago. */
  lastOperationAt?: number;
  /** Set while an admin (or the guard) has frozen it: every spend is refused (reads go on). */
  frozen?: Freeze;
  /** What the guard's rules read of its past (domain/guard.ts). */
  guard: GuardHistory;
}

/** Who froze an agent or a group, why, and when. */
export interface Freeze {
  by: string;
  reason?: string;
  at: number;
}

/** How long a settled intent is kept past the daily window: covers clocks that disagree. */
const RETENTION_MS = DAY_MS + HOUR_MS;

export const initialAgentState = (): AgentState => ({
  status: 'unregistered',
  agentId: '',
  groupId: '',
  limits: { per_tx_limit: new Big(0), daily_limit: new Big(0), hourly_tx_cap: 0 },
  apiKeyHash: '',
  retiredKeyHashes: [],
  intents: Windows.empty,
  guard: emptyGuardHistory,
});

export function evolveAgent(state: AgentState, event: AgentEvent): AgentState {
  const next = evolveOwn(state, event);
  const guard = evolveGuardHistory(state.guard, event);
  return guard === next.guard ? next : { ...next, guard };
}

/**
 * evolveAgent without the guard's history (`guard` stays as it was): for a replay that judges no spend
 * under a guard rule (the policy preview without rules), which never reads it, and is spared the half
 * of the fold that folding it costs.
 */
export const evolveAgentUnguarded = (state: AgentState, event: AgentEvent): AgentState =>
  evolveOwn(state, event);

function evolveOwn(state: AgentState, event: AgentEvent): AgentState {
  switch (event.type) {
    case 'guard.tripped':
      return state;
    case 'agent.registered':
      return {
        ...state,
        status: 'active',
        agentId: event.data.agent_id,
        groupId: event.data.group_id,
        limits: limitsFromData(event.data.limits),
        apiKeyHash: event.data.api_key_hash,
      };
    case 'agent.limits_changed':
      return { ...state, limits: limitsFromData(event.data.limits) };
    case 'agent.api_key_rotated':
    case 'agent.api_key_issued':
      return {
        ...state,
        apiKeyHash: event.data.api_key_hash,
        retiredKeyHashes: [...state.retiredKeyHashes, state.apiKeyHash],
      };
    case 'agent.revoked':
    case 'agent.emergency_withdraw':
      return { ...state, status: 'revoked' };
    case 'agent.frozen': {
      const { by, reason, at } = event.data;
      return { ...state, frozen: { by, ...(reason !== undefined && { reason }), at } };
    }
    case 'agent.unfrozen': {
      const { frozen: _lifted, ...rest } = state;
      return rest;
    }
    case 'intent.accepted': {
      const d = event.data;
      const item: WindowItem = {
        intentId: d.intent_id,
        action: d.action,
        at: d.at,
        value: new Big(d.value),
        spends: d.spends,
        status: 'reserved',
        ...(d.held && { held: true }),
      };
      return {
        ...state,
        intents: state.intents.pruned(d.at, RETENTION_MS).with(item),
        lastOperationAt: Math.max(state.lastOperationAt ?? d.at, d.at),
      };
    }
    case 'intent.confirmed':
    case 'intent.failed': {
      const item = state.intents.get(event.data.intent_id);
      if (!item || item.status !== 'reserved') return state;
      const status = event.type === 'intent.confirmed' ? 'confirmed' : 'failed';
      // The signed transaction served its executor while the intent was open; a settled intent counts
      // in the windows for a day more and is kept without it (about a kilobyte each).
      const { submission: _sent, ...settled } = item;
      return { ...state, intents: state.intents.with({ ...settled, status }) };
    }
    case 'intent.submitting': {
      const item = state.intents.get(event.data.intent_id);
      if (!item || item.status !== 'reserved') return state;
      const d = event.data;
      const submission = {
        signature: d.signature,
        wire: d.wire,
        lastValidBlockHeight: d.last_valid_block_height,
        ...(d.receives && { receives: d.receives }),
      };
      return { ...state, intents: state.intents.with({ ...item, submission }) };
    }
    case 'x402.payment_signed': {
      const item = state.intents.get(event.data.intent_id);
      if (!item || item.status !== 'reserved') return state;
      const d = event.data;
      const x402 = {
        header: d.header,
        signature: d.signature,
        lastValidBlockHeight: d.last_valid_block_height,
      };
      return { ...state, intents: state.intents.with({ ...item, x402 }) };
    }
    case 'x402.payment_settled': {
      const item = state.intents.get(event.data.intent_id);
      if (!item?.x402 || item.status !== 'reserved') return state;
      const d = event.data;
      const settled = { tx_sig: d.tx_sig, ...(d.resource && { resource: d.resource }) };
      return { ...state, intents: state.intents.with({ ...item, x402: { ...item.x402, settled } }) };
    }
    case 'x402.payment_refused': {
      const item = state.intents.get(event.data.intent_id);
      if (!item?.x402 || item.status !== 'reserved') return state;
      const d = event.data;
      const refused = { refusal: d.refusal, ...(d.resource && { resource: d.resource }) };
      return { ...state, intents: state.intents.with({ ...item, x402: { ...item.x402, refused } }) };
    }
    case 'intent.blocked':
      return event.data.code === 'unauthorized' ? { ...state, keyRefusedAt: event.data.at } : state;
    case 'payment.received':
    case 'policy.limit_threshold':
      return state;
  }
}

/** An agent's stream (`agent-<id>`): its state is its keys, limits, spends and intents. */
export const agentFold: Fold<AgentState, AgentEvent> = {
  initialState: initialAgentState,
  evolve: evolveAgent,
};

export const foldAgent = (events: readonly AgentEvent[]): AgentState =>
  events.reduce(evolveAgent, initialAgentState());

// ---- the windows ----

/** The base-token value spent (reserved or confirmed; or only confirmed) in the 24 hours before `now`. */
export const spentInDay = (state: AgentState, now: number, only?: 'confirmed'): Big =>
  state.intents.spent(now, DAY_MS, only ?? 'counted');

/** The operations (spends and withdrawals, reserved or confirmed; or only confirmed) in the 60 minutes before `now`. */
export const opsInHour = (state: AgentState, now: number, only?: 'confirmed'): number =>
  state.intents.ops(now, HOUR_MS, only ?? 'counted');

export function dailyRemaining(state: AgentState, now: number): Big {
  const spent = spentInDay(state, now);
  return spent.gte(state.limits.daily_limit) ? new Big(0) : state.limits.daily_limit.minus(spent);
}

export const hourlyRemaining = (state: AgentState, now: number): number =>
  Math.max(0, state.limits.hourly_tx_cap - opsInHour(state, now));

// ---- lifecycle commands ----

export interface RegisterAgent {
  agent_id: string;
  /** Digest of the invitation secret the caller presented. */
  invitation_hash: string;
  /** Digest of the API key minted for this registration. */
  api_key_hash: string;
  now: number;
}

/**
 * Redeems an invitation. The agent's stream must be empty: with an append that expects no stream,
 * exactly one of any number of concurrent registrations wins. Every failure is the same
 * `invalid_invitation_code`, so a caller learns nothing about which part was wrong.
 */
export function decideRegister(cmd: RegisterAgent, group: GroupState, agent: AgentState): AgentEvent[] {
  const invitation = group.invitations.get(cmd.agent_id);
  const valid =
    invitation !== undefined &&
    sameDigest(invitation.hash, cmd.invitation_hash) &&
    cmd.now < invitation.expiresAt &&
    agent.status === 'unregistered';
  if (!valid) throw new ServiceError('invalid_invitation_code');
  return [
    {
      type: 'agent.registered',
      data: {
        agent_id: cmd.agent_id,
        group_id: group.groupId,
        limits: limitsToData(invitation.limits),
        api_key_hash: cmd.api_key_hash,
        at: cmd.now,
      },
    },
  ];
}

export function decideChangeLimits(
  cmd: { limits: LimitsInput; now: number },
  agent: AgentState,
): AgentEvent[] {
  mustBeRegistered(agent);
  const limits = mergeLimits(agent.limits, cmd.limits);
  return [
    {
      type: 'agent.limits_changed',
      data: { agent_id: agent.agentId, limits: limitsToData(limits), at: cmd.now },
    },
  ];
}

export function decideRotateKey(cmd: { api_key_hash: string; now: number }, agent: AgentState): AgentEvent[] {
  mustBeActive(agent);
  return [
    {
      type: 'agent.api_key_rotated',
      data: { agent_id: agent.agentId, api_key_hash: cmd.api_key_hash, at: cmd.now },
    },
  ];
}

/** The new key of a rotation, by a proposal: for an active agent only. */
export function decideIssueKey(cmd: { api_key_hash: string; now: number }, agent: AgentState): AgentEvent[] {
  mustBeActive(agent);
  return [
    {
      type: 'agent.api_key_issued',
      data: { agent_id: agent.agentId, api_key_hash: cmd.api_key_hash, at: cmd.now },
    },
  ];
}

export function decideRevoke(cmd: { reason?: string; now: number }, agent: AgentState): AgentEvent[] {
  mustBeRegistered(agent);
  if (agent.status === 'revoked') return [];
  return [
    {
      type: 'agent.revoked',
      data: { agent_id: agent.agentId, reason: cmd.reason ?? 'operator', at: cmd.now },
    },
  ];
}

/**
 * The failure of every accepted intent that no executor has submitted yet: none of them reaches the
 * chain afterwards, since an executor records a submission only on an intent still reserved. An intent
 * already submitted, or an x402 payment signed (it may reach the chain as a submission may), is left to
 * its executor. Held intents are left to their approvals, which the caller rejects
 * (application/approvals.ts `rejectAgentHolds`): the approvers' record says why.
 */
export function failUnsubmitted(
  agent: AgentState,
  failure: { code: 'unauthorized' | FreezeCode; message: string },
  now: number,
): AgentEvent[] {
  return [...agent.intents.values()]
    .filter((item) => item.status === 'reserved' && !item.submission && !item.x402 && !item.held)
    .map((item) => ({
      type: 'intent.failed',
      data: { intent_id: item.intentId, agent_id: agent.agentId, ...failure, at: now },
    }));
}

/**
 * The emergency brake, first step: the agent is revoked (nothing new is accepted) and every accepted
 * intent that no executor has submitted yet fails (`failUnsubmitted`), so none reaches the chain after
 * the drain. An intent already submitted lands before the drain, or fails on chain for want of funds
 * after it. May be repeated on a revoked agent (to drain again).
 */
export function decideEmergencyStop(cmd: { now: number }, agent: AgentState): AgentEvent[] {
  mustBeRegistered(agent);
  const failed = failUnsubmitted(
    agent,
    {
      code: 'unauthorized',
      message: 'The operator stopped this agent (emergency withdrawal) before the operation was submitted.',
    },
    cmd.now,
  );
  return [...decideRevoke({ reason: 'emergency_withdraw', now: cmd.now }, agent), ...failed];
}

/**
 * The kill switch of one agent (narrowing: any one admin, at once): from this event on, every spend it
 * asks is refused `agent_frozen`, and what it had accepted but not submitted fails now. Freezing a
 * frozen agent again records nothing new but still fails what is left open. A revoked agent spends
 * nothing: there is nothing to freeze.
 */
export function decideFreezeAgent(
  cmd: { by: string; reason?: string; now: number },
  agent: AgentState,
): AgentEvent[] {
  mustBeRegistered(agent);
  if (agent.status === 'revoked') return [];
  const frozen: AgentEvent[] = agent.frozen
    ? []
    : [
        {
          type: 'agent.frozen',
          data: {
            agent_id: agent.agentId,
            group_id: agent.groupId,
            by: cmd.by,
            ...(cmd.reason !== undefined && { reason: cmd.reason }),
            at: cmd.now,
          },
        },
      ];
  return [...frozen, ...failUnsubmitted(agent, FROZEN.agent_frozen(cmd.reason, cmd.by), cmd.now)];
}

/** What an intent failed by a freeze says: which switch, and the admin's (or the guard's) reason. */
export const FROZEN: Record<
  FreezeCode,
  (reason?: string, by?: string) => { code: FreezeCode; message: string }
> = {
  agent_frozen: (reason, by) => ({
    code: 'agent_frozen',
    message: `${by === 'guard' ? 'The guard' : 'An admin'} froze this agent before the operation was submitted${reason ? `: ${reason}` : ''}.`,
  }),
  group_frozen: (reason) => ({
    code: 'group_frozen',
    message: `An admin froze the agent's group before the operation was submitted${reason ? `: ${reason}` : ''}.`,
  }),
};

/** Unfreezing widens what the agent may spend: it is executed by a proposal (proposal.ts). */
export function decideUnfreezeAgent(cmd: { now: number }, agent: AgentState): AgentEvent[] {
  mustBeRegistered(agent);
  if (!agent.frozen) throw new ServiceError('conflict', 'The agent is not frozen.');
  return [
    {
      type: 'agent.unfrozen',
      data: {
        agent_id: agent.agentId,
        group_id: agent.groupId,
        at: cmd.now,
      },
    },
  ];
}

/** The emergency brake, last step: what the drain moved to `destination`, on record. */
export function decideEmergencyWithdrawn(
  cmd: Omit<AgentEmergencyWithdraw['data'], 'agent_id' | 'group_id' | 'at'> & { now: number },
  agent: AgentState,
): AgentEvent[] {
  mustBeRegistered(agent);
  const { now, ...drained } = cmd;
  return [
    {
      type: 'agent.emergency_withdraw',
      data: { agent_id: agent.agentId, group_id: agent.groupId, ...drained, at: now },
    },
  ];
}

/** Whether a presented API key digest is this agent's current one (constant time). */
export const acceptsKey = (agent: AgentState, apiKeyHash: string): boolean =>
  agent.status === 'active' && sameDigest(agent.apiKeyHash, apiKeyHash);

/**
 * Whether a presented key digest is one this agent was ever given (its current key or a rotated-out
 * one). Every digest is compared, in constant time each, so the time taken says nothing about which.
 */
export function heldKey(agent: AgentState, apiKeyHash: string): boolean {
  let held = false;
  for (const digest of [agent.apiKeyHash, ...agent.retiredKeyHashes])
    held = sameDigest(digest, apiKeyHash) || held;
  return agent.status !== 'unregistered' && held;
}

/** Refused spends with an agent's own old key are recorded at most once in this long (see decideKeyRefused). */
export const KEY_REFUSAL_INTERVAL_MS = 60_000;

export interface RefusedKeyAttempt {
  intent_id: string;
  action: Action;
  /** The digest of the key presented. */
  api_key_hash: string;
  /** What the request asked, as far as it says (the request is not validated for a refused key). */
  attempted_amount: Big;
  mint: string;
  counterparty: string;
  now: number;
}

/**
 * A spend attempted with a key this agent held but may no longer use (the agent is revoked, or the
 * key was rotated out) is refused `unauthorized`, and recorded as a blocked intent: the operator's
 * webhooks hear of a revoked agent that keeps trying. A key that is not one of the agent's records
 * nothing (anyone can name an agent). To keep a caller that retries in a loop from filling the log,
 * one attempt is recorded per agent per KEY_REFUSAL_INTERVAL_MS; the others within it are answered
 * 401 all the same, and count against the caller address's allowance of failed authentications.
 */
export function decideKeyRefused(cmd: RefusedKeyAttempt, agent: AgentState): AgentEvent[] {
  if (!heldKey(agent, cmd.api_key_hash) || acceptsKey(agent, cmd.api_key_hash)) return [];
  if (agent.keyRefusedAt !== undefined && cmd.now - agent.keyRefusedAt < KEY_REFUSAL_INTERVAL_MS) return [];
  return [
    {
      type: 'intent.blocked',
      data: {
        intent_id: cmd.intent_id,
        agent_id: agent.agentId,
        group_id: agent.groupId,
        action: cmd.action,
        code: 'unauthorized',
        message:
          agent.status === 'revoked'
            ? 'The agent is revoked; its key no longer moves anything.'
            : 'The key was rotated out; use the agent’s current key.',
        attempted_amount: cmd.attempted_amount.toFixed(),
        mint: cmd.mint,
        counterparty: cmd.counterparty,
        at: cmd.now,
      },
    },
  ];
}

function mustBeRegistered(agent: AgentState): void {
  if (agent.status === 'unregistered') throw new ServiceError('not_found', 'No such registered agent.');
}

function mustBeActive(agent: AgentState): void {
  mustBeRegistered(agent);
  if (agent.status === 'revoked') throw new ServiceError('conflict', 'The agent is revoked.');
}
