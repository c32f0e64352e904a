/**
 * Governance (design.md "Governance: the operator is a team"): a group's members and their roles, its
 * governance policy (how many admins must sign a widening change, how long it waits, where an
 * emergency withdrawal goes by default), its freeze, and which changes widen what agents may spend.
 * Fast to stop, slow to open: a narrowing change is decided at once for any one admin; a widening one
 * is a proposal (proposal.ts) that executes only under a quorum of admins' signatures.
 *
 * Pure: `evolveGovernance` folds the group stream's events into the governance state, the `decide…`
 * functions turn a command and that state into new events or throw a ServiceError. No I/O, no clock.
 * The events are the group stream's (`group-<group_id>`); a change a proposal executed carries its
 * `proposal_id`, stamped by the application (governed.ts `byProposal`), never by a decider.
 */
import type Big from 'big.js';
import { ServiceError, validationError } from '../errors';
import type {
  GovernanceEvent,
  GovernancePolicySet,
  GroupCreated,
  GroupFrozen,
  GroupUnfrozen,
  MemberAdded,
  MemberRemoved,
  MemberRole,
} from './events';

import type { Limits } from './limits';
import { isAddress } from './tokens';

// ---- members and roles ----

export const ROLES = ['admin', 'approver', 'viewer'] as const satisfies readonly MemberRole[];
export type Role = MemberRole;

/**
 * What a member may do: `admin` changes the group (and proposes and signs what widens it), `approve`
 * decides held spends, `read` reads the group, its agents and its log. Auditors are not members: they
 * read the log only (group.ts `authorizeReader`).
 */
export type Capability = 'admin' | 'approve' | 'read';

const CAPABILITIES: Record<Role, ReadonlySet<Capability>> = {
  admin: new Set<Capability>(['admin', 'approve', 'read']),
  approver: new Set<Capability>(['approve', 'read']),
  viewer: new Set<Capability>(['read']),
};

/** The least role that has each capability, for the refusal's words. */
const LEAST_ROLE: Record<Capability, Role> = { admin: 'admin', approve: 'approver', read: 'viewer' };

export const roleCan = (role: Role | undefined, capability: Capability): boolean =>
  role !== undefined && CAPABILITIES[role].has(capability);

// ---- the state ----

export interface GovernancePolicy {
  /** Distinct admins whose signatures a widening change needs (m of the n admins). */
  quorum: number;
  /** How long a proposal that has its quorum waits before it executes. */
  delaySeconds: number;
  /** Where an emergency withdrawal goes unless a proposal says otherwise. */
  safeDestination: string;
}

export interface GovernanceState {
  exists: boolean;
  groupId: string;
  /** Role by wallet; the creator is the first admin. */
  members: ReadonlyMap<string, Role>;
  policy: GovernancePolicy;
  /** Set while the group is frozen: every spend of its agents is refused. */
  frozen?: { by: string; reason?: string; at: number };
}

export const DEFAULT_QUORUM = 1;
export const DEFAULT_DELAY_SECONDS = 0;
/** A governance delay longer than a proposal lives would let nothing execute. */
export const MAX_DELAY_SECONDS = 6 * 86_400;

export const initialGovernanceState = (): GovernanceState => ({
  exists: false,
  groupId: '',
  members: new Map(),
  policy: { quorum: DEFAULT_QUORUM, delaySeconds: DEFAULT_DELAY_SECONDS, safeDestination: '' },
});

/** Folds the group stream's events that governance reads (the creation, members, policy, freezes). */
export function evolveGovernance(
  state: GovernanceState,
  event: GovernanceEvent | GroupCreated | { type: string; data: unknown },
): GovernanceState {
  const e = event as GovernanceEvent | GroupCreated;
  switch (e.type) {
    case 'group.created':
      return {
        exists: true,
        groupId: e.data.group_id,
        members: new Map([[e.data.owner_wallet, 'admin']]),
        policy: { ...state.policy, safeDestination: e.data.owner_wallet },
      };
    case 'member.added':
      return { ...state, members: new Map(state.members).set(e.data.wallet, e.data.role) };
    case 'member.removed': {
      const members = new Map(state.members);
      members.delete(e.data.wallet);
      return { ...state, members };
    }
    case 'governance.policy_set':
      return {
        ...state,
        policy: {
          quorum: e.data.quorum,
          delaySeconds: e.data.delay_seconds,
          safeDestination: e.data.safe_destination,
        },
      };
    case 'group.frozen':
      return {
        ...state,
        frozen: {
          by: e.data.by,
          ...(e.data.reason !== undefined && { reason: e.data.reason }),
          at: e.data.at,
        },
      };
    case 'group.unfrozen': {
      const { frozen: _lifted, ...rest } = state;
      return rest;
    }
    default:
      return state;
  }
}

export const foldGovernance = (events: readonly { type: string; data: unknown }[]): GovernanceState =>
  events.reduce(evolveGovernance, initialGovernanceState());

export const roleOf = (state: GovernanceState, wallet: string): Role | undefined => state.members.get(wallet);

/** The admins, in the order they became members. */
export const adminsOf = (state: GovernanceState): string[] =>
  [...state.members].filter(([, role]) => role === 'admin').map(([wallet]) => wallet);

/**
 * A member acts only within its role: anything else is `forbidden` (`not_found` if there is no group).
 * A wallet that is not a member at all is refused the same way, so a stranger learns nothing more.
 */
export function authorizeMember(state: GovernanceState, wallet: string, capability: Capability): Role {
  if (!state.exists) throw new ServiceError('not_found', 'No such group.');
  const role = roleOf(state, wallet);
  if (!roleCan(role, capability))
    throw new ServiceError(
      'forbidden',
      role === undefined
        ? 'This wallet is not a member of the group.'
        : `A member with role ${role} may not do this: it needs the role ${LEAST_ROLE[capability]} or above.`,
    );
  return role as Role;
}

// ---- decisions on members and the policy (each executed by a proposal) ----

function mustExist(state: GovernanceState): void {
  if (!state.exists) throw new ServiceError('not_found', 'No such group.');
}

function keepsQuorum(admins: number, quorum: number): void {
  if (admins < quorum)
    throw new ServiceError(
      'validation_error',
      `The group would have ${admins} admin${admins === 1 ? '' : 's'}, fewer than its quorum of ${quorum}.`,
      [{ path: '/quorum', issue: `must be at most the number of admins (${admins})` }],
    );
}

/**
 * Adds a member, or changes a member's role. The same role again records nothing. No change may leave
 * fewer admins than the quorum.
 */
export function decideAddMember(
  cmd: { wallet: string; role: unknown; now: number },
  state: GovernanceState,
): MemberAdded[] {
  mustExist(state);
  if (!isAddress(cmd.wallet))
    throw validationError([{ path: '/wallet', issue: 'must be a base58 Solana address' }]);
  if (!ROLES.includes(cmd.role as Role))
    throw validationError([{ path: '/role', issue: `must be one of ${ROLES.join(', ')}` }]);
  const role = cmd.role as Role;
  const current = roleOf(state, cmd.wallet);
  if (current === role) return [];
  const admins = adminsOf(state).length - (current === 'admin' ? 1 : 0) + (role === 'admin' ? 1 : 0);
  keepsQuorum(admins, state.policy.quorum);
  return [
    {
      type: 'member.added',
      data: {
        group_id: state.groupId,
        wallet: cmd.wallet,
        role,
        at: cmd.now,
      },
    },
  ];
}

/** Removes a member; the group keeps at least one admin, and at least as many as its quorum. */
export function decideRemoveMember(
  cmd: { wallet: string; now: number },
  state: GovernanceState,
): MemberRemoved[] {
  mustExist(state);
  const current = roleOf(state, cmd.wallet);
  if (current === undefined)
    throw new ServiceError('not_found', 'That wallet is not a member of this group.');
  const admins = adminsOf(state).length - (current === 'admin' ? 1 : 0);
  if (admins === 0) throw new ServiceError('conflict', 'The group would have no admin left.');
  keepsQuorum(admins, state.policy.quorum);
  return [
    {
      type: 'member.removed',
      data: {
        group_id: state.groupId,
        wallet: cmd.wallet,
        at: cmd.now,
      },
    },
  ];
}

export interface SetGovernance {
  /** Each field left out keeps its value in force. */
  quorum?: unknown;
  delay_seconds?: unknown;
  safe_destination?: unknown;
  now: number;
}

/** The policy a change would put in force: the fields it gives over the policy in force, checked. */
export function nextGovernancePolicy(cmd: SetGovernance, state: GovernanceState): GovernancePolicy {
  mustExist(state);
  const quorum = cmd.quorum ?? state.policy.quorum;
  const delay = cmd.delay_seconds ?? state.policy.delaySeconds;
  const destination = cmd.safe_destination ?? state.policy.safeDestination;
  const admins = adminsOf(state).length;
  const details = [
    ...(Number.isSafeInteger(quorum) && (quorum as number) >= 1
      ? []
      : [{ path: '/quorum', issue: 'must be a whole number of admins, at least 1' }]),
    ...(Number.isSafeInteger(delay) && (delay as number) >= 0 && (delay as number) <= MAX_DELAY_SECONDS
      ? []
      : [
          {
            path: '/delay_seconds',
            issue: `must be a whole number of seconds from 0 to ${MAX_DELAY_SECONDS}`,
          },
        ]),
    ...(typeof destination === 'string' && isAddress(destination)
      ? []
      : [{ path: '/safe_destination', issue: 'must be a base58 Solana address' }]),
  ];
  if (details.length > 0) throw validationError(details);
  keepsQuorum(admins, quorum as number);
  return { quorum: quorum as number, delaySeconds: delay as number, safeDestination: destination as string };
}

/** Puts a governance policy in force (nothing when it is the one in force already). */
export function decideSetGovernance(cmd: SetGovernance, state: GovernanceState): GovernancePolicySet[] {
  const next = nextGovernancePolicy(cmd, state);
  const p = state.policy;
  if (
    next.quorum === p.quorum &&
    next.delaySeconds === p.delaySeconds &&
    next.safeDestination === p.safeDestination
  )
    return [];
  return [
    {
      type: 'governance.policy_set',
      data: {
        group_id: state.groupId,
        quorum: next.quorum,
        delay_seconds: next.delaySeconds,
        safe_destination: next.safeDestination,
        at: cmd.now,
      },
    },
  ];
}

// ---- the kill switch: freezing is at once, lifting it is a proposal ----

/** Freezes the group (any one admin). Freezing a frozen group records nothing: asking twice is safe. */
export function decideFreezeGroup(
  cmd: { by: string; reason?: string; now: number },
  state: GovernanceState,
): GroupFrozen[] {
  mustExist(state);
  if (state.frozen) return [];
  return [
    {
      type: 'group.frozen',
      data: {
        group_id: state.groupId,
        by: cmd.by,
        ...(cmd.reason !== undefined && { reason: cmd.reason }),
        at: cmd.now,
      },
    },
  ];
}

/** Lifts the group's freeze: a proposal's execution. A group that is not frozen is a conflict. */
export function decideUnfreezeGroup(cmd: { now: number }, state: GovernanceState): GroupUnfrozen[] {
  mustExist(state);
  if (!state.frozen) throw new ServiceError('conflict', 'The group is not frozen.');
  return [
    {
      type: 'group.unfrozen',
      data: {
        group_id: state.groupId,
        at: cmd.now,
      },
    },
  ];
}

// ---- which changes widen what agents may spend (a proposal) and which narrow it (at once) ----

/**
 * Limits (an agent's, or the group's defaults) widen when any of them rises. An agent's own approval
 * threshold is compared by the threshold that applies (`thresholdWidens`), which the group's policy
 * decides too.
 */
export const limitsWiden = (old: Limits, next: Limits): boolean =>
  next.per_tx_limit.gt(old.per_tx_limit) ||
  next.daily_limit.gt(old.daily_limit) ||
  next.hourly_tx_cap > old.hourly_tx_cap;

/**
 * A threshold of amounts held for a person (null: none, nothing held by amount) widens when it lets a
 * larger spend through without a person: raised, or lifted.
 */
export const thresholdWidens = (old: Big | null, next: Big | null): boolean =>
  old !== null && (next === null || next.gt(old));
