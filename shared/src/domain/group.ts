/**
 * The group: its owner, base token and default limits, its allow-list, its invitations and its
 * auditors (wallets that may read the group's log and do nothing else); its members, governance
 * policy and freeze are governance.ts's, folded from the same stream.
 * Pure: `evolveGroup` folds events into state, the `decide…` functions turn a command and the state
 * into new events or throw a ServiceError. No I/O, no clock: `now` comes in with the command.
 */
import Big from 'big.js';
import { amountText, parseAmount, type Amount } from '../money';
import { ServiceError, validationError } from '../errors';
import {
  ENTRY_TYPE,
  type AgentInvited,
  type AuditorGranted,
  type AuditorRemoved,
  type EntryType,
  type GroupEvent,
  type GroupUpdated,
  type GuardRule,
  type WhitelistDailyLimitSet,
  type WhitelistEntryAdded,
  type WhitelistEntryRemoved,
  type WhitelistExpiring,
} from './events';
import { limitsFromData, limitsToData, mergeLimits, type Limits, type LimitsInput } from './limits';
import type { Fold } from './decider';
import { groupLimitsFromEvent, type GroupLimits } from './group-limits';
import { inReadingOrder } from './guard';
import { policyFromData, type ApprovalPolicy } from './approval-policy';
import {
  authorizeMember,
  evolveGovernance,
  initialGovernanceState,
  roleCan,
  roleOf,
  type Capability,
  type GovernanceState,
} from './governance';

export interface AllowEntry {
  entryId: string;
  address: string;
  type: EntryType;
  label?: string;
  /** Type 1 only: the budget, in the group's base token. */
  approvedAmount?: Amount;
  /** Type 1 only: epoch ms after which the entry no longer allows spending. */
  ttlExpiresAt?: number;
  /**
   * Types 1 and 2: what all the group's agents together may send it in any 24 hours, in the base
   * token (guard.md), counted in the entry's budget stream (budget.ts). Absent: none.
   */
  dailyLimit?: Amount;
  /** Whether `policy.whitelist_expiring` was recorded for this entry. */
  expiringNoticed?: boolean;
}

export interface Invitation {
  agentId: string;
  hash: string;
  expiresAt: number;
  limits: Limits;
  label?: string;
}

export interface GroupState {
  exists: boolean;
  groupId: string;
  ownerWallet: string;
  /** When it was created (ms). */
  createdAt: number;
  /** What its admins call it, and say of it (none until set). */
  name?: string;
  description?: string;
  baseMint: string;
  defaultLimits: Limits;
  /** Active entries by address. */
  entries: ReadonlyMap<string, AllowEntry>;
  /** Invitations by agent id (an agent's wallet address). */
  invitations: ReadonlyMap<string, Invitation>;
  /** Wallets with read-only access to the group's log. */
  auditors: ReadonlySet<string>;
  /** Which spends are held for a person (absent: none, unless an agent has its own threshold). */
  approvalPolicy?: ApprovalPolicy;
  /** Its own limits over all its agents (group-limits.ts); empty: none. */
  limits: GroupLimits;
  /** Its guard rules (guard.ts); empty: none. */
  guard: readonly GuardRule[];
  /** Its members and roles, its governance policy and its freeze (governance.ts). */
  governance: GovernanceState;
}

export const initialGroupState = (): GroupState => ({
  exists: false,
  groupId: '',
  ownerWallet: '',
  createdAt: 0,
  baseMint: '',
  defaultLimits: { per_tx_limit: new Big(0), daily_limit: new Big(0), hourly_tx_cap: 0 },
  entries: new Map(),
  invitations: new Map(),
  auditors: new Set(),
  limits: {},
  guard: [],
  governance: initialGovernanceState(),
});

export function evolveGroup(state: GroupState, event: GroupEvent): GroupState {
  const governance = evolveGovernance(state.governance, event);
  const next = evolveOwn(state, event);
  return governance === state.governance ? next : { ...next, governance };
}

/** What the group stream says beyond governance. */
function evolveOwn(state: GroupState, event: GroupEvent): GroupState {
  switch (event.type) {
    case 'group.created':
      return {
        ...state,
        exists: true,
        groupId: event.data.group_id,
        ownerWallet: event.data.owner_wallet,
        createdAt: event.data.at,
        baseMint: event.data.base_mint,
        defaultLimits: limitsFromData(event.data.default_limits),
      };
    case 'whitelist.entry_added': {
      const d = event.data;
      const entries = new Map(state.entries);
      entries.set(d.address, {
        entryId: d.entry_id,
        address: d.address,
        type: d.type,
        ...(d.label !== undefined && { label: d.label }),
        ...(d.approved_amount !== undefined && { approvedAmount: new Big(d.approved_amount) }),
        ...(d.ttl_expires_at !== undefined && { ttlExpiresAt: d.ttl_expires_at }),
        ...(d.daily_limit !== undefined && { dailyLimit: new Big(d.daily_limit) }),
      });
      return { ...state, entries };
    }
    case 'whitelist.daily_limit_set': {
      const d = event.data;
      const entry = state.entries.get(d.address);
      if (entry?.entryId !== d.entry_id) return state;
      const { dailyLimit: _old, ...rest } = entry;
      const entries = new Map(state.entries);
      entries.set(d.address, d.daily_limit === null ? rest : { ...rest, dailyLimit: new Big(d.daily_limit) });
      return { ...state, entries };
    }
    case 'whitelist.entry_removed': {
      const entries = new Map(state.entries);
      if (entries.get(event.data.address)?.entryId === event.data.entry_id)
        entries.delete(event.data.address);
      return { ...state, entries };
    }
    case 'policy.whitelist_expiring': {
      const entry = state.entries.get(event.data.recipient);
      if (entry?.entryId !== event.data.entry_id) return state;
      const entries = new Map(state.entries);
      entries.set(entry.address, { ...entry, expiringNoticed: true });
      return { ...state, entries };
    }
    case 'agent.invited': {
      const d = event.data;
      const invitations = new Map(state.invitations);
      invitations.set(d.agent_id, {
        agentId: d.agent_id,
        hash: d.invitation_hash,
        expiresAt: d.invitation_expires_at,
        limits: limitsFromData(d.limits),
        ...(d.label !== undefined && { label: d.label }),
      });
      return { ...state, invitations };
    }
    case 'auditor.granted':
      return { ...state, auditors: new Set(state.auditors).add(event.data.wallet) };
    case 'auditor.removed': {
      const auditors = new Set(state.auditors);
      auditors.delete(event.data.wallet);
      return { ...state, auditors };
    }
    case 'group.approval_policy_set':
      return { ...state, approvalPolicy: policyFromData(event.data) };
    case 'group.limits_set':
      return { ...state, limits: groupLimitsFromEvent(event.data) };
    case 'group.guard_set':
      return { ...state, guard: event.data.rules.map(inReadingOrder) };
    case 'group.updated': {
      const d = event.data;
      return {
        ...state,
        ...(d.default_limits && { defaultLimits: limitsFromData(d.default_limits) }),
        ...(d.name !== undefined && { name: d.name }),
        ...(d.description !== undefined && { description: d.description }),
      };
    }
    default:
      return state;
  }
}

/** A group's stream: its owner, defaults, agents and allow-list. */
export const groupFold: Fold<GroupState, GroupEvent> = {
  initialState: initialGroupState,
  evolve: evolveGroup,
};

export const foldGroup = (events: readonly GroupEvent[]): GroupState =>
  events.reduce(evolveGroup, initialGroupState());

// ---- commands ----

export interface CreateGroup {
  group_id: string;
  owner_wallet: string;
  base_mint: string;
  default_limits: Limits;
  /** The swap aggregator, allow-listed as a protocol entry when the group is created. */
  aggregator: { entry_id: string; address: string };
  now: number;
}

export function decideCreateGroup(cmd: CreateGroup, state: GroupState): GroupEvent[] {
  if (state.exists) throw new ServiceError('conflict', 'The group already exists.');
  return [
    {
      type: 'group.created',
      data: {
        group_id: cmd.group_id,
        owner_wallet: cmd.owner_wallet,
        base_mint: cmd.base_mint,
        default_limits: limitsToData(cmd.default_limits),
        at: cmd.now,
      },
    },
    {
      type: 'whitelist.entry_added',
      data: {
        group_id: cmd.group_id,
        entry_id: cmd.aggregator.entry_id,
        address: cmd.aggregator.address,
        type: ENTRY_TYPE.protocol,
        label: 'aggregator',
        at: cmd.now,
      },
    },
  ];
}

/**
 * New defaults for the group's new agents (over those in force), a name, a description: only what
 * changes is recorded; nothing that changes records nothing. Agents invited already keep their limits.
 */
export function decideUpdateGroup(
  cmd: { limits?: LimitsInput; name?: string; description?: string; now: number },
  state: GroupState,
): GroupUpdated[] {
  mustExist(state);
  const next = mergeLimits(state.defaultLimits, cmd.limits ?? {});
  const limitsChange =
    !next.per_tx_limit.eq(state.defaultLimits.per_tx_limit) ||
    !next.daily_limit.eq(state.defaultLimits.daily_limit) ||
    next.hourly_tx_cap !== state.defaultLimits.hourly_tx_cap;
  const nameChange = cmd.name !== undefined && cmd.name !== state.name;
  const descriptionChange = cmd.description !== undefined && cmd.description !== state.description;
  if (!limitsChange && !nameChange && !descriptionChange) return [];
  return [
    {
      type: 'group.updated',
      data: {
        group_id: state.groupId,
        ...(limitsChange && { default_limits: limitsToData(next) }),
        ...(nameChange && { name: cmd.name! }),
        ...(descriptionChange && { description: cmd.description! }),
        at: cmd.now,
      },
    },
  ];
}

export interface AddEntry {
  entry_id: string;
  address: string;
  type: unknown;
  label?: string;
  approved_amount?: unknown;
  ttl_seconds?: unknown;
  /** Types 1 and 2: the entry's own rolling 24-hour limit over all the group's agents; absent or null: none. */
  daily_limit?: unknown;
  now: number;
}

/**
 * Adds an allow-list entry. Type 1 needs a positive `approved_amount` and `ttl_seconds`; type 2 takes
 * neither; either may take a `daily_limit`; type 0 entries are added automatically for the group's
 * agents. Adding an address that is already listed replaces its entry (a renewal: new TTL, new budget,
 * fresh usage, its daily window counted afresh).
 */
export function decideAddEntry(cmd: AddEntry, state: GroupState): WhitelistEntryAdded[] {
  mustExist(state);
  if (cmd.type !== ENTRY_TYPE.recipient && cmd.type !== ENTRY_TYPE.protocol) {
    throw validationError([
      {
        path: '/type',
        issue: 'must be 1 (external recipient) or 2 (protocol); type 0 entries are added for agents',
      },
    ]);
  }
  const existing = state.entries.get(cmd.address);
  if (existing?.type === ENTRY_TYPE.agent)
    throw new ServiceError('conflict', 'That address is an agent of this group.');
  const base = { group_id: state.groupId, entry_id: cmd.entry_id, address: cmd.address, at: cmd.now };
  const label = cmd.label === undefined ? {} : { label: cmd.label };
  const daily = entryDailyLimit(cmd.daily_limit);
  const dailyLimit = daily === undefined ? {} : { daily_limit: amountText(daily) };
  if (cmd.type === ENTRY_TYPE.protocol) {
    if (cmd.approved_amount !== undefined || cmd.ttl_seconds !== undefined) {
      throw validationError([
        { path: '/type', issue: 'protocol entries (type 2) take no approved_amount or ttl_seconds' },
      ]);
    }
    return [
      {
        type: 'whitelist.entry_added',
        data: { ...base, type: ENTRY_TYPE.protocol, ...label, ...dailyLimit },
      },
    ];
  }
  if (cmd.approved_amount === undefined)
    throw validationError([{ path: '/approved_amount', issue: 'is required for type 1' }]);
  const approved = parseAmount(cmd.approved_amount, 'approved_amount');
  if (approved.lte(0))
    throw new ServiceError('invalid_amount', 'The approved_amount must be more than zero.');
  const ttl = cmd.ttl_seconds;
  if (!(Number.isSafeInteger(ttl) && (ttl as number) > 0)) {
    throw validationError([
      { path: '/ttl_seconds', issue: 'is required for type 1: a positive whole number of seconds' },
    ]);
  }
  return [
    {
      type: 'whitelist.entry_added',
      data: {
        ...base,
        type: ENTRY_TYPE.recipient,
        ...label,
        approved_amount: amountText(approved),
        ttl_expires_at: cmd.now + (ttl as number) * 1000,
        ...dailyLimit,
      },
    },
  ];
}

/** An entry's daily limit as the operator gives it: absent or null is none; else an amount (`invalid_amount`). */
const entryDailyLimit = (input: unknown): Amount | undefined =>
  input === undefined || input === null ? undefined : parseAmount(input, 'daily_limit');

/**
 * Sets an entry's own daily limit (types 1 and 2), or lifts it (`daily_limit: null`). Nothing when it
 * is the one in force. The entry stays the same entry, so its window keeps what it counted.
 */
export function decideSetEntryDailyLimit(
  cmd: { entry_id: string; daily_limit: unknown; now: number },
  state: GroupState,
): WhitelistDailyLimitSet[] {
  const entry = entryById(state, cmd.entry_id);
  if (cmd.daily_limit === undefined)
    throw validationError([{ path: '/daily_limit', issue: 'is required: an amount, or null to lift it' }]);
  const next = entryDailyLimit(cmd.daily_limit);
  const old = entry.dailyLimit;
  if (next === undefined ? old === undefined : old?.eq(next) === true) return [];
  return [
    {
      type: 'whitelist.daily_limit_set',
      data: {
        group_id: state.groupId,
        entry_id: entry.entryId,
        address: entry.address,
        daily_limit: next === undefined ? null : amountText(next),
        at: cmd.now,
      },
    },
  ];
}

/** Whether an entry's daily limit going from `old` to `next` lets agents send it more: lifted or raised. */
export const entryDailyLimitWidens = (old: Amount | undefined, next: Amount | undefined): boolean =>
  old !== undefined && (next === undefined || next.gt(old));

/** The group's entry `entryId`, one a daily limit applies to (types 1 and 2): `not_found`, `conflict` for an agent's. */
export function entryById(state: GroupState, entryId: string): AllowEntry {
  mustExist(state);
  const entry = [...state.entries.values()].find((e) => e.entryId === entryId);
  if (!entry) throw new ServiceError('not_found', 'No such allow-list entry in this group.');
  if (entry.type === ENTRY_TYPE.agent)
    throw new ServiceError(
      'conflict',
      "An agent's own entry takes no daily limit: the agents' limits bound what they send each other.",
    );
  return entry;
}

export function decideRemoveEntry(
  cmd: { entry_id: string; now: number },
  state: GroupState,
): WhitelistEntryRemoved[] {
  mustExist(state);
  const entry = [...state.entries.values()].find((e) => e.entryId === cmd.entry_id);
  if (!entry) throw new ServiceError('not_found', 'No such allow-list entry in this group.');
  if (entry.type === ENTRY_TYPE.agent)
    throw new ServiceError('conflict', 'Agents of the group stay allowed; revoke the agent instead.');
  return [
    {
      type: 'whitelist.entry_removed',
      data: { group_id: state.groupId, entry_id: entry.entryId, address: entry.address, at: cmd.now },
    },
  ];
}

/** How long before its TTL an entry is announced as expiring. */
export const EXPIRING_NOTICE_MS = 24 * 60 * 60 * 1000;

/**
 * Records that an entry's TTL fell under 24 hours: once per entry (a renewal is a new entry), for an
 * entry still listed, and not before its time. Nothing otherwise, so a scheduler may ask again freely.
 */
export function decideWhitelistExpiring(
  cmd: { entry_id: string; now: number },
  state: GroupState,
): WhitelistExpiring[] {
  const entry = [...state.entries.values()].find((e) => e.entryId === cmd.entry_id);
  if (!entry || entry.ttlExpiresAt === undefined || entry.expiringNoticed) return [];
  if (entry.ttlExpiresAt - cmd.now >= EXPIRING_NOTICE_MS) return [];
  return [
    {
      type: 'policy.whitelist_expiring',
      data: {
        group_id: state.groupId,
        entry_id: entry.entryId,
        recipient: entry.address,
        ...(entry.label !== undefined && { label: entry.label }),
        ttl_expires_at: entry.ttlExpiresAt,
        at: cmd.now,
      },
    },
  ];
}

export interface InviteAgent {
  agent_id: string;
  /** Digest of the invitation secret; the secret itself is shown to the operator once. */
  invitation_hash: string;
  expires_at: number;
  limits?: LimitsInput;
  label?: string;
  entry_id: string;
  now: number;
}

/** Invites one agent: its limits (group defaults overlaid with the operator's), and a type-0 entry. */
export function decideInviteAgent(cmd: InviteAgent, state: GroupState): GroupEvent[] {
  mustExist(state);
  if (state.invitations.has(cmd.agent_id))
    throw new ServiceError('conflict', 'That agent is already invited.');
  if (cmd.expires_at <= cmd.now)
    throw validationError([{ path: '/expires_in_seconds', issue: 'must be in the future' }]);
  const limits = mergeLimits(state.defaultLimits, cmd.limits ?? {});
  const invited: AgentInvited = {
    type: 'agent.invited',
    data: {
      group_id: state.groupId,
      agent_id: cmd.agent_id,
      invitation_hash: cmd.invitation_hash,
      invitation_expires_at: cmd.expires_at,
      limits: limitsToData(limits),
      ...(cmd.label !== undefined && { label: cmd.label }),
      at: cmd.now,
    },
  };
  const entry: WhitelistEntryAdded = {
    type: 'whitelist.entry_added',
    data: {
      group_id: state.groupId,
      entry_id: cmd.entry_id,
      address: cmd.agent_id,
      type: ENTRY_TYPE.agent,
      label: cmd.label ?? 'agent',
      at: cmd.now,
    },
  };
  return [invited, entry];
}

/**
 * Gives `wallet` read-only access to the group's log. Granting a wallet that has it already records
 * nothing (asking twice is safe); a member reads its group anyway, so it is not made an auditor.
 */
export function decideGrantAuditor(
  cmd: { wallet: string; now: number },
  state: GroupState,
): AuditorGranted[] {
  mustExist(state);
  if (roleOf(state.governance, cmd.wallet) !== undefined)
    throw new ServiceError('conflict', 'That wallet is a member of the group: it reads the log already.');
  if (state.auditors.has(cmd.wallet)) return [];
  return [{ type: 'auditor.granted', data: { group_id: state.groupId, wallet: cmd.wallet, at: cmd.now } }];
}

/** Takes an auditor's access away; `not_found` for a wallet that is not an auditor of the group. */
export function decideRemoveAuditor(
  cmd: { wallet: string; now: number },
  state: GroupState,
): AuditorRemoved[] {
  mustExist(state);
  if (!state.auditors.has(cmd.wallet))
    throw new ServiceError('not_found', 'That wallet is not an auditor of this group.');
  return [{ type: 'auditor.removed', data: { group_id: state.groupId, wallet: cmd.wallet, at: cmd.now } }];
}

/**
 * Who may read the group's log: its members (every role reads) and its auditors; anyone else is
 * `forbidden` (not found if no group).
 */
export function authorizeReader(state: GroupState, wallet: string): void {
  mustExist(state);
  if (!roleCan(roleOf(state.governance, wallet), 'read') && !state.auditors.has(wallet))
    throw new ServiceError('forbidden', 'This wallet is neither a member nor an auditor of the group.');
}

/**
 * A member acts on its group within its role (governance.ts `authorizeMember`): `admin` changes it,
 * `approve` decides held spends, `read` reads it; anything else is `forbidden` (not found if none).
 */
export function authorizeOperator(state: GroupState, wallet: string, capability: Capability = 'admin'): void {
  authorizeMember(state.governance, wallet, capability);
}

function mustExist(state: GroupState): void {
  if (!state.exists) throw new ServiceError('not_found', 'No such group.');
}
