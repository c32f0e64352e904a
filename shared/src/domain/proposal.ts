/**
 * Proposals (design.md "Governance"): a widening change waits, as a proposal, until a quorum of the
 * group's admins has signed its message and the governance delay has passed; then the service executes
 * it as the very events the change makes, each carrying the proposal id. Pure: no I/O, no clock.
 *
 * The proposals of a group live in their own stream (`proposals-<group_id>`):
 *
 *   governance.proposed    the change (an action and its parameters), its message and its expiry
 *   governance.signed      one admin's ed25519 signature of the message, verified before it is recorded
 *   governance.executed    the change was made (its events are the group's or agent's, with proposal_id)
 *   governance.cancelled   by any admin, while pending or ready
 *   governance.expired     unexecuted after PROPOSAL_TTL_MS
 *   governance.failed      it no longer applied when it was due (its agent revoked meanwhile, ...)
 *
 * Whether a proposal is `ready` is not recorded: the policy in force decides it, at every read and at
 * execution (the quorum now in force, counting only signers who are admins now), so a governance
 * change or a member removed meanwhile counts at once. The stream is the one arbiter: a decision is
 * appended at the revision it was made on, so two signers racing, or a cancel racing an execution,
 * decide a proposal once.
 */
import { ServiceError, validationError } from '../errors';
import type {
  ProposalCancelled,
  ProposalEvent,
  ProposalExecuted,
  ProposalExpired,
  ProposalFailed,
  ProposalMade,
  ProposalSecretShown,
} from './events';
import type { Fold } from './decider';
import { canonicalJson } from './canonical-json';
import { adminsOf, authorizeMember, type GovernanceState } from './governance';
import { verifySignature } from './signatures';
import { groupScopedId, parseGroupScopedId } from './group-scoped-id';

/** An unexecuted proposal expires this long after it was made. */
export const PROPOSAL_TTL_MS = 7 * 86_400_000;

export type ProposalStatus = 'pending' | 'ready' | 'executed' | 'cancelled' | 'expired' | 'failed';
type Closed = Exclude<ProposalStatus, 'pending' | 'ready'>;

// ---- the state ----

export interface ProposalRecord {
  proposed: ProposalMade['data'];
  /** Signatures by wallet, in the order recorded. */
  signatures: ReadonlyMap<string, { signature: string; at: number }>;
  /** Set once the proposal is over. */
  closed?: {
    status: Closed;
    at: number;
    by?: string;
    reason?: string;
    signers?: string[];
    result?: unknown;
    /** Who was shown the secrets its execution made: the executing signer, or the proposer once it read them. */
    secretShownTo?: string;
  };
}

export interface ProposalsState {
  proposals: ReadonlyMap<string, ProposalRecord>;
}

export const initialProposalsState = (): ProposalsState => ({ proposals: new Map() });

const CLOSING: Record<
  Exclude<ProposalEvent['type'], 'governance.proposed' | 'governance.signed' | 'governance.secret_shown'>,
  Closed
> = {
  'governance.executed': 'executed',
  'governance.cancelled': 'cancelled',
  'governance.expired': 'expired',
  'governance.failed': 'failed',
};

export function evolveProposals(state: ProposalsState, event: ProposalEvent): ProposalsState {
  const proposals = new Map(state.proposals);
  if (event.type === 'governance.proposed') {
    proposals.set(event.data.proposal_id, { proposed: event.data, signatures: new Map() });
    return { proposals };
  }
  const record = state.proposals.get(event.data.proposal_id);
  if (!record) return state;
  if (event.type === 'governance.signed') {
    const signatures = new Map(record.signatures).set(event.data.wallet, {
      signature: event.data.signature,
      at: event.data.at,
    });
    proposals.set(event.data.proposal_id, { ...record, signatures });
    return { proposals };
  }
  if (event.type === 'governance.secret_shown') {
    if (!record.closed) return state;
    proposals.set(event.data.proposal_id, {
      ...record,
      closed: { ...record.closed, secretShownTo: event.data.to },
    });
    return { proposals };
  }
  const d = event.data as Partial<
    ProposalCancelled['data'] & ProposalFailed['data'] & ProposalExecuted['data']
  > & { at: number };
  proposals.set(event.data.proposal_id, {
    ...record,
    closed: {
      status: CLOSING[event.type],
      at: d.at,
      ...(d.by !== undefined && { by: d.by }),
      ...(d.reason !== undefined && { reason: d.reason }),
      ...(d.signers !== undefined && { signers: d.signers }),
      ...(d.result !== undefined && { result: d.result }),
      ...(d.secret_shown_to !== undefined && { secretShownTo: d.secret_shown_to }),
    },
  });
  return { proposals };
}

export const proposalsFold: Fold<ProposalsState, ProposalEvent> = {
  initialState: initialProposalsState,
  evolve: evolveProposals,
};

export const foldProposals = (events: readonly ProposalEvent[]): ProposalsState =>
  events.reduce(evolveProposals, initialProposalsState());

// ---- ids and the message ----

/** A proposal's id names its group, so any route can find its stream (as an approval's does). */
export const proposalIdOf = (groupId: string, uuid: string): string => groupScopedId(groupId, uuid);

export function parseProposalId(proposalId: string): { groupId: string } | undefined {
  const parsed = parseGroupScopedId(proposalId);
  return parsed && { groupId: parsed.groupId };
}

/**
 * What an admin signs: the group, the action, its parameters (RFC 8785 canonical JSON, so the same
 * change reads the same wherever it is signed), the proposal and its expiry, one per line.
 */
export const proposalMessage = (
  f: Pick<ProposalMade['data'], 'proposal_id' | 'group_id' | 'action' | 'params' | 'expires_at'>,
): string =>
  [
    'TokenOps governance proposal',
    `proposal: ${f.proposal_id}`,
    `group: ${f.group_id}`,
    `action: ${f.action}`,
    `params: ${canonicalJson(f.params)}`,
    `expires_at: ${new Date(f.expires_at).toISOString()}`,
  ].join('\n');

// ---- reading a proposal under the policy in force ----

/** The signers who count now: admins now, in the order they signed. */
export const validSigners = (record: ProposalRecord, governance: GovernanceState): string[] => {
  const admins = new Set(adminsOf(governance));
  return [...record.signatures.keys()].filter((wallet) => admins.has(wallet));
};

/**
 * When the proposal executes, under the policy in force: the time of the signature that made the
 * quorum, plus the delay; undefined while it has no quorum.
 */
export function readyAt(record: ProposalRecord, governance: GovernanceState): number | undefined {
  const { quorum, delaySeconds } = governance.policy;
  const signers = validSigners(record, governance);
  if (signers.length < quorum) return undefined;
  const last = record.signatures.get(signers[quorum - 1] ?? '');
  return last === undefined ? undefined : last.at + delaySeconds * 1000;
}

/** A proposal's status at `now`: its closing if it is over; expired past its time; ready with a quorum. */
export function proposalStatusAt(
  record: ProposalRecord,
  governance: GovernanceState,
  now: number,
): ProposalStatus {
  if (record.closed) return record.closed.status;
  if (now >= record.proposed.expires_at) return 'expired';
  return readyAt(record, governance) === undefined ? 'pending' : 'ready';
}

/** Whether the service executes the proposal now: ready, and its delay passed. */
export function isDue(record: ProposalRecord, governance: GovernanceState, now: number): boolean {
  if (record.closed || now >= record.proposed.expires_at) return false;
  const at = readyAt(record, governance);
  return at !== undefined && now >= at;
}

/**
 * With no delay, the signature that makes the quorum executes the proposal in its own request, and
 * its admin is shown the secrets the change makes; the scheduler leaves it that long before it
 * executes such a proposal itself (the request was cut short).
 */
export const SIGNER_GRACE_MS = 15_000;

/**
 * When the scheduler executes the proposal: its readiness (with no delay, after the signer's grace);
 * undefined while it has no quorum.
 */
export function scheduledAt(record: ProposalRecord, governance: GovernanceState): number | undefined {
  const at = readyAt(record, governance);
  if (at === undefined) return undefined;
  return governance.policy.delaySeconds === 0 ? at + SIGNER_GRACE_MS : at;
}

/** What the scheduler acts on at `now`: the proposals due for execution and those to record as expired. */
export function proposalsDue(
  state: ProposalsState,
  governance: GovernanceState,
  now: number,
): { execute: string[]; expire: string[] } {
  const execute: string[] = [];
  const expire: string[] = [];
  for (const [id, record] of state.proposals) {
    if (record.closed) continue;
    const at = scheduledAt(record, governance);
    if (now >= record.proposed.expires_at) expire.push(id);
    else if (at !== undefined && now >= at && isDue(record, governance, now)) execute.push(id);
  }
  return { execute, expire };
}

// ---- the decisions ----

export interface Propose {
  proposal_id: string;
  action: string;
  params: Record<string, unknown>;
  /** The signed-in wallet: an admin of the group. */
  proposed_by: string;
  governance: GovernanceState;
  now: number;
}

/** An admin proposes a change (already checked as a valid change it may make, by the caller). */
export function decidePropose(cmd: Propose, state: ProposalsState): ProposalMade[] {
  authorizeMember(cmd.governance, cmd.proposed_by, 'admin');
  if (state.proposals.has(cmd.proposal_id))
    throw new ServiceError('conflict', 'That proposal exists already.');
  const fields = {
    proposal_id: cmd.proposal_id,
    group_id: cmd.governance.groupId,
    action: cmd.action,
    params: cmd.params,
    expires_at: cmd.now + PROPOSAL_TTL_MS,
  };
  return [
    {
      type: 'governance.proposed',
      data: { ...fields, message: proposalMessage(fields), proposed_by: cmd.proposed_by, at: cmd.now },
    },
  ];
}

function openOne(state: ProposalsState, proposalId: string): ProposalRecord {
  const record = state.proposals.get(proposalId);
  if (!record) throw new ServiceError('not_found', 'No such proposal.');
  return record;
}

/**
 * Decides on a proposal that is over, or whose time ran out: an expiry is recorded (so the caller's
 * request records it, then is refused), anything already closed is refused.
 */
function closedOne(record: ProposalRecord, now: number): ProposalEvent[] | undefined {
  if (record.closed) throw new ServiceError('conflict', `The proposal is ${record.closed.status} already.`);
  return now >= record.proposed.expires_at ? expired(record, now) : undefined;
}

const expired = (record: ProposalRecord, now: number): ProposalExpired[] => [
  {
    type: 'governance.expired',
    data: { proposal_id: record.proposed.proposal_id, group_id: record.proposed.group_id, at: now },
  },
];

export interface Sign {
  proposal_id: string;
  /** The signed-in wallet: an admin of the group. */
  wallet: string;
  /** Its ed25519 signature (base58) of the proposal's message. */
  signature: string;
  governance: GovernanceState;
  now: number;
}

/**
 * An admin signs. The signature must be the caller's own over the message; the same admin again adds
 * nothing (it counts once). Whether this makes the quorum is read after (proposalStatusAt, isDue).
 */
export function decideSign(cmd: Sign, state: ProposalsState): ProposalEvent[] {
  const record = openOne(state, cmd.proposal_id);
  authorizeMember(cmd.governance, cmd.wallet, 'admin');
  if (!verifySignature(cmd.wallet, record.proposed.message, cmd.signature))
    throw validationError([
      {
        path: '/signature',
        issue: "must be the signed-in wallet's ed25519 signature (base58) of the message",
      },
    ]);
  const over = closedOne(record, cmd.now);
  if (over) return over;
  if (record.signatures.has(cmd.wallet)) return [];
  return [
    {
      type: 'governance.signed',
      data: {
        proposal_id: cmd.proposal_id,
        group_id: record.proposed.group_id,
        wallet: cmd.wallet,
        signature: cmd.signature,
        at: cmd.now,
      },
    },
  ];
}

/** Any admin cancels a pending or ready proposal (narrowing: it needs no quorum). */
export function decideCancel(
  cmd: { proposal_id: string; wallet: string; reason?: string; governance: GovernanceState; now: number },
  state: ProposalsState,
): ProposalEvent[] {
  const record = openOne(state, cmd.proposal_id);
  authorizeMember(cmd.governance, cmd.wallet, 'admin');
  return (
    closedOne(record, cmd.now) ?? [
      {
        type: 'governance.cancelled',
        data: {
          proposal_id: cmd.proposal_id,
          group_id: record.proposed.group_id,
          by: cmd.wallet,
          ...(cmd.reason !== undefined && { reason: cmd.reason }),
          at: cmd.now,
        },
      },
    ]
  );
}

/** The expiry: an open proposal past its time is expired (nothing otherwise: the scheduler may ask twice). */
export function decideExpireProposal(
  cmd: { proposal_id: string; now: number },
  state: ProposalsState,
): ProposalExpired[] {
  const record = state.proposals.get(cmd.proposal_id);
  if (!record || record.closed || cmd.now < record.proposed.expires_at) return [];
  return expired(record, cmd.now);
}

/**
 * Records the execution of a due proposal, with the signers who made the quorum in force. Anything not
 * due is a conflict: the change must not be made (the caller decides the proposal before the change's
 * own events are appended, and appends both only if this holds).
 */
export function decideExecuted(
  cmd: {
    proposal_id: string;
    result?: unknown;
    /** The signer whose request executes it and is shown the secrets the change made. */
    secret_shown_to?: string;
    governance: GovernanceState;
    now: number;
  },
  state: ProposalsState,
): ProposalExecuted[] {
  const record = openOne(state, cmd.proposal_id);
  if (!isDue(record, cmd.governance, cmd.now))
    throw new ServiceError(
      'conflict',
      `The proposal is ${proposalStatusAt(record, cmd.governance, cmd.now)}, not due for execution.`,
    );
  const { quorum } = cmd.governance.policy;
  return [
    {
      type: 'governance.executed',
      data: {
        proposal_id: cmd.proposal_id,
        group_id: record.proposed.group_id,
        signers: validSigners(record, cmd.governance).slice(0, quorum),
        quorum,
        ...(cmd.result !== undefined && { result: cmd.result }),
        ...(cmd.secret_shown_to !== undefined && { secret_shown_to: cmd.secret_shown_to }),
        at: cmd.now,
      },
    },
  ];
}

/**
 * The proposer reads the secrets of a proposal the scheduler executed, once: only an executed
 * proposal whose change made secrets, only its proposer, only if nobody was shown them yet.
 */
export function decideShowSecret(
  cmd: { proposal_id: string; wallet: string; makesSecrets: boolean; now: number },
  state: ProposalsState,
): ProposalSecretShown[] {
  const record = state.proposals.get(cmd.proposal_id);
  if (!record) throw new ServiceError('not_found', 'No such proposal.');
  if (record.proposed.proposed_by !== cmd.wallet)
    throw new ServiceError('forbidden', 'Only the admin who proposed it reads its secrets.');
  if (record.closed?.status !== 'executed')
    throw new ServiceError('conflict', 'The proposal has not executed: it made no secret yet.');
  if (!cmd.makesSecrets) throw new ServiceError('not_found', 'This proposal’s change made no secret.');
  if (record.closed.secretShownTo !== undefined)
    throw new ServiceError(
      'conflict',
      record.closed.secretShownTo === cmd.wallet
        ? 'Its secrets were shown to you already, once: they are not shown again.'
        : 'Its secrets were shown, once, to the admin whose signature executed it.',
    );
  return [
    {
      type: 'governance.secret_shown',
      data: { proposal_id: cmd.proposal_id, group_id: record.proposed.group_id, to: cmd.wallet, at: cmd.now },
    },
  ];
}

/** A due proposal whose change no longer applies ends failed, with the reason (nothing if it is over). */
export function decideFailed(
  cmd: { proposal_id: string; reason: string; now: number },
  state: ProposalsState,
): ProposalFailed[] {
  const record = openOne(state, cmd.proposal_id);
  if (record.closed) return [];
  return [
    {
      type: 'governance.failed',
      data: {
        proposal_id: cmd.proposal_id,
        group_id: record.proposed.group_id,
        reason: cmd.reason,
        at: cmd.now,
      },
    },
  ];
}

// ---- the operator surface's Proposal object ----

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * `ready_at` is when it executes while it is open (null until the quorum); `result` is what the change
 * answered (null unless executed, and never a secret); `reason` why it was cancelled or failed.
 */
export function proposalView(record: ProposalRecord, governance: GovernanceState, now: number) {
  const p = record.proposed;
  const status = proposalStatusAt(record, governance, now);
  const ready = status === 'pending' || status === 'ready' ? readyAt(record, governance) : undefined;
  return {
    proposal_id: p.proposal_id,
    group_config_pda: p.group_id,
    action: p.action,
    params: p.params,
    status,
    message: p.message,
    signatures_required: governance.policy.quorum,
    signatures: [...record.signatures].map(([wallet, s]) => ({ wallet, signed_at: iso(s.at) })),
    proposed_by: p.proposed_by,
    created_at: iso(p.at),
    expires_at: iso(p.expires_at),
    ready_at: ready === undefined ? null : iso(ready),
    result: record.closed?.status === 'executed' ? (record.closed.result ?? null) : null,
    reason: record.closed?.reason ?? null,
  };
}
