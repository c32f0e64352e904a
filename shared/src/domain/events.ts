/**
 * Every event of the product, by stream. Event data is plain JSON: amounts as exact decimal text,
 * times as Unix epoch milliseconds (`at`). The streams, every name built here and nowhere else:
 *
 *   group-<group_id>            the group: defaults, allow-list, invitations, auditors, members,
 *                               its governance policy and freeze
 *   agent-<agent_id>            one agent: registration, key, limits, its intents and their outcomes
 *   budget-<entry_id>           what the group's agents reserved and sent to one allow-list entry: a type-1
 *                               entry's approved budget, and the window of an entry's daily limit (a type-2
 *                               entry has the stream only while it has a daily limit)
 *   idem-<agent>-<key digest>   one idempotency key of one agent (idempotency-events.ts)
 *   wallet-<address>            an agent wallet's sealed seed (application/wallets.ts)
 *   payments-<address>          outside payments to an address (the local chain's airdrop, the payment watcher)
 *   approvals-<group_id>        the group's held spends: requested, signed by approvers, decided
 *   proposals-<group_id>        the group's governance proposals: made, signed by admins, executed or closed
 *   webhooks-agent-<agent_id>,  webhook subscriptions of an agent, of a group
 *   webhooks-group-<group_id>
 */
import type { LimitsData } from './limits';
import type { ErrorCode, PolicyCode } from '../errors';
import { secretDigest } from './secrets';

export type Event<T extends string, D> = { type: T; data: D };

export const streams = {
  group: (groupId: string) => `group-${groupId}`,
  agent: (agentId: string) => `agent-${agentId}`,
  budget: (entryId: string) => `budget-${entryId}`,
  /** The key is digested: a stream name is visible to whoever reads the log. */
  idempotency: (agentId: string, key: string) => `idem-${agentId}-${secretDigest(key)}`,
  wallet: (address: string) => `wallet-${address}`,
  payments: (address: string) => `payments-${address}`,
  approvals: (groupId: string) => `approvals-${groupId}`,
  proposals: (groupId: string) => `proposals-${groupId}`,
  /** What every agent of a group has in the group limits' windows: touched only while the group has limits. */
  groupSpends: (groupId: string) => `group-spends-${groupId}`,
  webhooks: (owner: { agentId?: string; groupId?: string }) =>
    owner.agentId ? `webhooks-agent-${owner.agentId}` : `webhooks-group-${owner.groupId}`,
};

/** The allow-list entry types, by name; the numbers are what the wire and the events carry. */
export const ENTRY_TYPE = {
  /** Another agent of the group. */
  agent: 0,
  /** An external recipient: a TTL and an approved budget. */
  recipient: 1,
  /** A protocol: a lending venue, the aggregator. */
  protocol: 2,
} as const;
export type EntryType = (typeof ENTRY_TYPE)[keyof typeof ENTRY_TYPE];

// ---- group ----

export type GroupCreated = Event<
  'group.created',
  { group_id: string; owner_wallet: string; base_mint: string; default_limits: LimitsData; at: number }
>;
/** The group's defaults for new agents, or its name or description, changed (a rise by a proposal). */
export type GroupUpdated = Event<
  'group.updated',
  {
    group_id: string;
    default_limits?: LimitsData;
    name?: string;
    description?: string;
    at: number;
  } & ByProposal
>;
export type WhitelistEntryAdded = Event<
  'whitelist.entry_added',
  {
    group_id: string;
    entry_id: string;
    address: string;
    type: EntryType;
    label?: string;
    approved_amount?: string;
    ttl_expires_at?: number;
    /** Types 1 and 2: what all the group's agents together may send it in any 24 hours, in the base token. */
    daily_limit?: string;
    at: number;
  }
>;
/**
 * An entry's own daily limit changed (guard.md): null lifts it. Setting or lowering it is at once,
 * lifting or raising it a proposal. The entry stays the same entry: its window keeps what it counted.
 */
export type WhitelistDailyLimitSet = Event<
  'whitelist.daily_limit_set',
  { group_id: string; entry_id: string; address: string; daily_limit: string | null; at: number } & ByProposal
>;
export type WhitelistEntryRemoved = Event<
  'whitelist.entry_removed',
  { group_id: string; entry_id: string; address: string; at: number }
>;
export type AgentInvited = Event<
  'agent.invited',
  {
    group_id: string;
    agent_id: string;
    invitation_hash: string;
    invitation_expires_at: number;
    limits: LimitsData;
    label?: string;
    at: number;
  }
>;
/** A type-1 entry's TTL fell under 24 hours: recorded once per entry by the expiry scheduler. */
export type WhitelistExpiring = Event<
  'policy.whitelist_expiring',
  {
    group_id: string;
    entry_id: string;
    recipient: string;
    label?: string;
    ttl_expires_at: number;
    at: number;
  }
>;
/** The owner set the group's approval policy (design.md "Approvals"): spends above `threshold` are held. */
/**
 * The group's own limits over all its agents (guard.md): a rolling 24-hour value limit and a rolling
 * 60-minute operation cap, in the base token; null: none. Lowering or setting one is at once, lifting
 * or raising one a proposal.
 */
export type GroupLimitsSet = Event<
  'group.limits_set',
  { group_id: string; daily_limit: string | null; hourly_tx_cap: number | null; at: number } & ByProposal
>;
/**
 * The group's guard rules (guard.md): the list as a whole, replacing the one before. Adding or
 * tightening rules is at once; removing or loosening any is a proposal.
 */
export type GroupGuardSet = Event<
  'group.guard_set',
  { group_id: string; rules: GuardRule[]; at: number } & ByProposal
>;
export type ApprovalPolicySet = Event<
  'group.approval_policy_set',
  {
    group_id: string;
    /** In the base token; null: no threshold (only new recipients, if asked, are held). */
    threshold: string | null;
    approvers: string[];
    quorum: number;
    ttl_seconds: number;
    new_recipients: boolean;
    at: number;
  }
>;
/** The owner gave a wallet read-only access to the group's log (an auditor). */
export type AuditorGranted = Event<'auditor.granted', { group_id: string; wallet: string; at: number }>;
/** The owner took an auditor's access away. */
export type AuditorRemoved = Event<'auditor.removed', { group_id: string; wallet: string; at: number }>;
/** A member's role (governance.ts): admin, approver, viewer. */
export type MemberRole = 'admin' | 'approver' | 'viewer';
/** `proposal_id`: the proposal whose execution made the change (every widening change has one). */
type ByProposal = { proposal_id?: string };
/** A wallet became a member of the group, or a member's role changed. */
export type MemberAdded = Event<
  'member.added',
  { group_id: string; wallet: string; role: MemberRole; at: number } & ByProposal
>;
export type MemberRemoved = Event<
  'member.removed',
  { group_id: string; wallet: string; at: number } & ByProposal
>;
/** The group's governance policy: how many admins sign a widening change, its delay, the safe destination. */
export type GovernancePolicySet = Event<
  'governance.policy_set',
  {
    group_id: string;
    quorum: number;
    delay_seconds: number;
    safe_destination: string;
    at: number;
  } & ByProposal
>;
/** An admin froze the whole group: every spend of its agents is refused until it is unfrozen. */
export type GroupFrozen = Event<
  'group.frozen',
  { group_id: string; by: string; reason?: string; at: number }
>;
export type GroupUnfrozen = Event<'group.unfrozen', { group_id: string; at: number } & ByProposal>;
export type GovernanceEvent = MemberAdded | MemberRemoved | GovernancePolicySet | GroupFrozen | GroupUnfrozen;

export type GroupEvent =
  | GovernanceEvent
  | GroupCreated
  | GroupUpdated
  | WhitelistEntryAdded
  | WhitelistDailyLimitSet
  | WhitelistEntryRemoved
  | AgentInvited
  | WhitelistExpiring
  | AuditorGranted
  | AuditorRemoved
  | ApprovalPolicySet
  | GroupLimitsSet
  | GroupGuardSet;

// ---- the guard's rules (domain/guard.ts judges them; this is their wire shape, as events and the API carry it) ----

export type GuardAction = 'hold' | 'freeze_agent';
export type VelocityRule = { kind: 'velocity'; factor: number; min_count: number; action: GuardAction };
export type BurstRule = { kind: 'burst'; window_seconds: number; fraction: string; action: GuardAction };
export type NewCounterpartyRule = { kind: 'new_counterparty'; action: GuardAction };
export type NewTokenRule = { kind: 'new_token'; action: GuardAction };
export type RefusalsRule = {
  kind: 'refusals';
  count: number;
  window_seconds: number;
  action: 'freeze_agent';
};
export type QuietHoursRule = {
  kind: 'quiet_hours';
  from: string;
  to: string;
  time_zone: string;
  action: GuardAction;
};
export type GuardRule =
  VelocityRule | BurstRule | NewCounterpartyRule | NewTokenRule | RefusalsRule | QuietHoursRule;
export type GuardRuleKind = GuardRule['kind'];

/** What a rule that tripped measured, against what threshold, and a sentence for the people who read it. */
export interface GuardTrip {
  rule: GuardRuleKind;
  action: GuardAction;
  figures: Record<string, string | number>;
  words: string;
}

// ---- agent ----

export type Action = 'transfer' | 'swap' | 'deposit' | 'withdraw';

export type AgentRegistered = Event<
  'agent.registered',
  { agent_id: string; group_id: string; limits: LimitsData; api_key_hash: string; at: number }
>;
export type AgentLimitsChanged = Event<
  'agent.limits_changed',
  { agent_id: string; limits: LimitsData; at: number }
>;
export type AgentApiKeyRotated = Event<
  'agent.api_key_rotated',
  { agent_id: string; api_key_hash: string; at: number }
>;
/**
 * A rotation's second half: the agent's new key, issued by a proposal once its old key was killed
 * (`agent.api_key_rotated` to a key nobody holds). The key itself is shown once, never recorded.
 */
export type AgentApiKeyIssued = Event<
  'agent.api_key_issued',
  { agent_id: string; api_key_hash: string; at: number } & ByProposal
>;
/** An admin froze the agent: every spend of it is refused until it is unfrozen (its key still reads). */
export type AgentFrozen = Event<
  'agent.frozen',
  { agent_id: string; group_id: string; by: string; reason?: string; at: number }
>;
export type AgentUnfrozen = Event<
  'agent.unfrozen',
  { agent_id: string; group_id: string; at: number } & ByProposal
>;
/**
 * A guard rule tripped on one of the agent's spends (`intent_id`): the spend was held for approval
 * (`hold`) or refused and the agent frozen (`freeze_agent`, with `agent.frozen {by: "guard"}`).
 */
export type GuardTripped = Event<
  'guard.tripped',
  GuardTrip & { agent_id: string; group_id: string; intent_id: string; at: number }
>;
export type AgentRevoked = Event<'agent.revoked', { agent_id: string; reason: string; at: number }>;
export type AgentEmergencyWithdraw = Event<
  'agent.emergency_withdraw',
  {
    agent_id: string;
    group_id: string;
    destination: string;
    /** What moved to the destination, per mint (human units), with the transaction of each move. */
    moved: { mint: string; amount: string; tx_sig: string }[];
    /** Venue positions redeemed first: receipt tokens burnt and the underlying received. */
    redeemed: {
      lending_program: string;
      receipt_mint: string;
      receipt_amount: string;
      mint: string;
      amount: string;
      tx_sig: string;
    }[];
    at: number;
  }
>;

/** What every spending (or withdrawing) intent asked for and how it was valued. */
interface IntentCommon {
  intent_id: string;
  agent_id: string;
  group_id: string;
  /** The amount in `mint`'s human units (a withdrawal: receipt tokens redeemed). */
  amount: string;
  mint: string;
  /** The amount valued in the group's base token at decision time (equal to amount for the base token). */
  value: string;
  /** Whether it counts toward the daily limit (every action but withdraw). */
  spends: boolean;
  /** Recipient (transfer), aggregator (swap) or lending program (deposit, withdraw). */
  counterparty: string;
  entry_id: string;
  /**
   * Set when the entry's budget stream holds the reservation: a type-1 entry (its budget), or an entry
   * with a daily limit of its own (its window; a withdrawal spends nothing and reserves nothing).
   */
  budget_entry_id?: string;
  /** Set when the group had limits of its own: the group's spends stream counts it (released if it fails). */
  group_limited?: true;
  task_id?: string;
  idempotency_key?: string;
  /** Headroom once this intent counts: what the answer reports, also when a retry rebuilds it. */
  daily_remaining_after?: string;
  hourly_tx_remaining_after?: number;
  /** Type-1 entries: what remains of the entry's budget once this intent is reserved (the variant answers it). */
  budget_remaining_after?: string;
  /** Set when the intent is held for approval: not executed until its approval is approved. */
  held?: { approval_id: string; expires_at: number };
  at: number;
}

/** A swap's terms, fixed at decision time (amounts in human units of the output token). */
export interface SwapParams {
  to_mint: string;
  /** The least the agent accepts: below it at execution, nothing is submitted. */
  minimum_amount_out: string;
  slippage_bps: number;
  quoted_amount_out: string;
}

/** What a lending operation hands the venue. */
export interface LendingParams {
  /** The venue-specific instruction body the agent gave (bytes), checked by the venue adapter. */
  cpi_data?: number[];
}

/**
 * An x402 payment's terms (a transfer to the resource's `payTo`): the request the service makes, what
 * the resource asked for (its 402's requirements, as x402 v2 JSON) and the one requirement paid. The
 * price goes to `payTo` in full; the protocol fee is on top, in a transaction of its own.
 */
export interface X402Terms {
  url: string;
  method: string;
  /** The request's headers and body (JSON), sealed by the key vault: they may carry the agent's credentials. */
  sealed_request?: string;
  /** The PAYMENT-REQUIRED header's content (x402 v2 PaymentRequired). */
  payment_required: Record<string, unknown>;
  /** The requirement paid (x402 v2 PaymentRequirements: scheme exact, network, asset, amount, payTo, extra). */
  requirement: Record<string, unknown>;
  /** What `payTo` receives, in human units (the intent's net_amount). */
  price: string;
}

/** A resource's answer as the service keeps it (for the agent and its replays). */
export interface ResourceReply {
  status: number;
  /** content-type and the x402 headers, lower-case names. */
  headers: Record<string, string>;
  body: string;
  truncated?: boolean;
}

/** Each action with its own parameters: what an executor needs to build the transaction. */
export type IntentData =
  | (IntentCommon & {
      action: 'transfer';
      protocol_fee: string;
      net_amount: string;
      memo?: string;
      /** When set, the chain's memo instruction carries this (the memo's SHA-256, hex) and the memo stays in the log. */
      memo_sha256?: string;
      /** Set when the transfer is an x402 payment (POST /x402/pay): its fee is on top of net_amount. */
      x402?: X402Terms;
    })
  | (IntentCommon & { action: 'swap'; params: SwapParams })
  | (IntentCommon & { action: 'deposit'; params: LendingParams })
  | (IntentCommon & { action: 'withdraw'; params: LendingParams });

export type IntentParams = SwapParams | LendingParams;

export type IntentAccepted = Event<'intent.accepted', IntentData>;
export type IntentBlocked = Event<
  'intent.blocked',
  {
    intent_id: string;
    agent_id: string;
    group_id: string;
    action: Action;
    code: BlockCode;
    message: string;
    attempted_amount: string;
    mint: string;
    counterparty: string;
    at: number;
  }
>;
/** The executor's record of what it is about to submit, written before it submits (never twice on chain). */
export type IntentSubmitting = Event<
  'intent.submitting',
  {
    intent_id: string;
    agent_id: string;
    signature: string;
    wire: string;
    last_valid_block_height: string;
    /** What the agent gets back if it lands (human units), for the confirmation after a crash. */
    receives?: { mint: string; amount: string };
    at: number;
  }
>;
/**
 * An x402 payment signed by the agent, recorded before it is sent (never signed twice while it may
 * still land): the PAYMENT-SIGNATURE header, the agent's signature that finds it on chain, and the
 * last block height at which it can land.
 */
export type X402PaymentSigned = Event<
  'x402.payment_signed',
  {
    intent_id: string;
    agent_id: string;
    header: string;
    signature: string;
    last_valid_block_height: string;
    at: number;
  }
>;
/** What every record of an x402 payment says of it: whose, to whom, how much, for which URL. */
export interface X402Payment {
  intent_id: string;
  agent_id: string;
  group_id: string;
  url: string;
  pay_to: string;
  /** The price, in human units of `mint` (the fee is on top). */
  amount: string;
  mint: string;
}
/**
 * An x402 payment landed (the facilitator's settlement, or the chain asked after a crash): its
 * transaction and the resource's answer (absent when the answer was lost in a crash after it landed).
 */
export type X402PaymentSettled = Event<
  'x402.payment_settled',
  X402Payment & { tx_sig: string; resource?: ResourceReply; at: number }
>;
/**
 * The resource refused a signed x402 payment without settling it, and it is not on chain yet; the
 * resource (or whoever it gave it to) can still land it until its blockhash expires. The intent stays
 * reserved (its room held) until then; once the chain is past `last_valid_block_height` it is asked
 * again: landed, the payment is settled after all; not landed, the intent fails (x402_payment_refused).
 */
export type X402PaymentRefused = Event<
  'x402.payment_refused',
  X402Payment & {
    /** What the resource did: "The resource answered 500 without settling the payment (…)". */
    refusal: string;
    last_valid_block_height: string;
    /** The resource's answer to the paid request. */
    resource?: ResourceReply;
    at: number;
  }
>;
/** An outside party paid the agent (the local chain's airdrop, or a payment the chain reported). */
export type PaymentReceived = Event<
  'payment.received',
  { agent_id: string; mint: string; amount: string; from: string; tx_signature: string; at: number }
>;
export type IntentConfirmed = Event<
  'intent.confirmed',
  {
    intent_id: string;
    agent_id: string;
    tx_sig: string;
    /** What the agent received back (swap: the output; deposit: receipt tokens; withdraw: the underlying). */
    received_amount?: string;
    received_mint?: string;
    /** An x402 payment: the transaction of the protocol fee (tx_sig is the payment's), and the resource's answer. */
    fee_tx_sig?: string;
    resource?: ResourceReply;
    /**
     * The SOL fee the service's transaction (tx_sig; an x402 payment's: fee_tx_sig) paid, lamports as
     * decimal text: 5,000 a signature and its compute-unit price × limit; and the account that paid it
     * (the fee payer). Absent from confirmations recorded before it was recorded, and where the
     * service sent no transaction of its own (an x402 payment confirmed without its fee's).
     */
    sol_fee_lamports?: string;
    fee_payer?: string;
    at: number;
  }
>;
export type IntentFailed = Event<
  'intent.failed',
  { intent_id: string; agent_id: string; code: ErrorCode; message: string; at: number }
>;
export type LimitThreshold = Event<
  'policy.limit_threshold',
  {
    agent_id: string;
    threshold: 'daily' | 'hourly';
    spent_today: string;
    daily_limit: string;
    hourly_count: number;
    hourly_tx_cap: number;
    at: number;
  }
>;
export type AgentEvent =
  | AgentRegistered
  | AgentFrozen
  | AgentUnfrozen
  | AgentLimitsChanged
  | AgentApiKeyRotated
  | AgentApiKeyIssued
  | AgentRevoked
  | AgentEmergencyWithdraw
  | GuardTripped
  | IntentAccepted
  | IntentBlocked
  | IntentSubmitting
  | X402PaymentSigned
  | X402PaymentSettled
  | X402PaymentRefused
  | PaymentReceived
  | IntentConfirmed
  | IntentFailed
  | LimitThreshold;

/** Why an intent was blocked by the decision: a policy check, or the agent/amount/recipient itself. */
export type BlockCode = PolicyCode | 'unauthorized' | 'invalid_amount' | 'recipient_invalid' | FreezeCode;
/** The codes of a freeze (governance.ts): the agent's own, or its whole group's. */
export type FreezeCode = 'agent_frozen' | 'group_frozen';

// ---- what an allow-list entry reserved: a type-1 entry's budget, an entry's daily window ----

export type BudgetReserved = Event<
  'budget.reserved',
  { entry_id: string; intent_id: string; agent_id: string; amount: string; at: number }
>;
export type BudgetReleased = Event<'budget.released', { entry_id: string; intent_id: string; at: number }>;
export type BudgetConsumed = Event<
  'budget.consumed',
  { entry_id: string; intent_id: string; amount: string; amount_used: string; at: number }
>;
/** Whose spend settled a budget event (absent from events recorded before it was kept). */
export interface BudgetCause {
  agent_id?: string;
  group_id?: string;
}
export type WhitelistAmountThreshold = Event<
  'policy.whitelist_amount_threshold',
  BudgetCause & {
    entry_id: string;
    recipient: string;
    amount_used: string;
    approved_amount: string;
    at: number;
  }
>;
export type WhitelistVoided = Event<
  'policy.whitelist_voided',
  BudgetCause & { entry_id: string; recipient: string; final_amount_used: string; at: number }
>;
export type BudgetEvent =
  BudgetReserved | BudgetReleased | BudgetConsumed | WhitelistAmountThreshold | WhitelistVoided;

// ---- the group's spends, counted against its own limits ----

/** An intent of an agent of the group counted in the group limits' windows, from its acceptance on. */
export type GroupSpendCounted = Event<
  'group.spend_counted',
  { group_id: string; intent_id: string; agent_id: string; value: string; spends: boolean; at: number }
>;
/** An intent that failed (or was never accepted) no longer counts. */
export type GroupSpendReleased = Event<
  'group.spend_released',
  { group_id: string; intent_id: string; at: number }
>;
export type GroupSpendsEvent = GroupSpendCounted | GroupSpendReleased;

// ---- approvals of a group's held spends ----

/** Why a spend was held: its value is above the threshold, or it is the first to its allow-list entry. */
export type HoldReason = 'threshold' | 'new_recipient' | 'guard';

export type ApprovalRequested = Event<
  'approval.requested',
  {
    approval_id: string;
    intent_id: string;
    group_id: string;
    agent_id: string;
    action: Action;
    amount: string;
    mint: string;
    value_in_base: string;
    counterparty: string;
    idempotency_key?: string;
    /** Why it was held: the threshold first, then a first spend to a recipient, then the guard. */
    reason: HoldReason;
    /** The guard's rules that held it, with their figures (whatever `reason` is). */
    guard?: GuardTrip[];
    approvers: string[];
    quorum: number;
    /** The entry whose budget stream holds a reservation for it (released on rejection or expiry). */
    budget_entry_id?: string;
    /** The group's spends stream counts it (released on rejection or expiry). */
    group_limited?: true;
    requested_at: number;
    expires_at: number;
    /** What an approver signs (approvalMessage): binds everything above. */
    message: string;
    at: number;
  }
>;
/** One approver's signature of the approval's message (ed25519, base58), checked before it is recorded. */
export type ApprovalSigned = Event<
  'approval.signed',
  {
    approval_id: string;
    /** The held intent (its correlation id: an intent's story shows who signed). */
    intent_id: string;
    group_id: string;
    approver: string;
    signature: string;
    at: number;
  }
>;
export type ApprovalDecision = 'approved' | 'rejected' | 'expired';
export type ApprovalDecided = Event<
  'approval.decided',
  {
    approval_id: string;
    intent_id: string;
    group_id: string;
    agent_id: string;
    decision: ApprovalDecision;
    /** The approvers whose signatures made the quorum, the one who rejected; none for an expiry. */
    by: string[];
    reason?: string;
    at: number;
  }
>;
export type ApprovalEvent = ApprovalRequested | ApprovalSigned | ApprovalDecided;

// ---- proposals of a group's governance (proposal.ts) ----

export type ProposalMade = Event<
  'governance.proposed',
  {
    proposal_id: string;
    group_id: string;
    /** What the change is (a row of the application's governed actions: `member.add`, ...). */
    action: string;
    /** The change's parameters, as the route took them (no secret: a secret is made at execution). */
    params: Record<string, unknown>;
    /** What each admin signs (proposalMessage). */
    message: string;
    proposed_by: string;
    expires_at: number;
    at: number;
  }
>;
export type ProposalSigned = Event<
  'governance.signed',
  { proposal_id: string; group_id: string; wallet: string; signature: string; at: number }
>;
export type ProposalExecuted = Event<
  'governance.executed',
  {
    proposal_id: string;
    group_id: string;
    /** The admins whose signatures made the quorum in force at execution. */
    signers: string[];
    quorum: number;
    /** What the change answered (the entry, the member, ...), with no secret in it. */
    result?: unknown;
    /** The admin whose signature executed it and was shown the secrets it made, in that answer. */
    secret_shown_to?: string;
    at: number;
  }
>;
/**
 * The proposer read the secrets a change made when the scheduler executed it (after a delay), once:
 * the secret itself is never in the log.
 */
export type ProposalSecretShown = Event<
  'governance.secret_shown',
  { proposal_id: string; group_id: string; to: string; at: number }
>;
export type ProposalCancelled = Event<
  'governance.cancelled',
  { proposal_id: string; group_id: string; by: string; reason?: string; at: number }
>;
export type ProposalExpired = Event<
  'governance.expired',
  { proposal_id: string; group_id: string; at: number }
>;
export type ProposalFailed = Event<
  'governance.failed',
  { proposal_id: string; group_id: string; reason: string; at: number }
>;

export type ProposalEvent =
  | ProposalMade
  | ProposalSigned
  | ProposalExecuted
  | ProposalCancelled
  | ProposalExpired
  | ProposalFailed
  | ProposalSecretShown;

export type DomainEvent =
  GroupEvent | AgentEvent | BudgetEvent | GroupSpendsEvent | ApprovalEvent | ProposalEvent;
export type EventType = DomainEvent['type'];

// Keyed by the union, so the compiler keeps it whole: a type added to DomainEvent must be listed here.
const LISTED: Record<EventType, true> = {
  'group.created': true,
  'group.updated': true,
  'whitelist.entry_added': true,
  'whitelist.daily_limit_set': true,
  'whitelist.entry_removed': true,
  'agent.invited': true,
  'policy.whitelist_expiring': true,
  'auditor.granted': true,
  'auditor.removed': true,
  'group.approval_policy_set': true,
  'group.limits_set': true,
  'group.guard_set': true,
  'member.added': true,
  'member.removed': true,
  'governance.policy_set': true,
  'group.frozen': true,
  'group.unfrozen': true,
  'agent.frozen': true,
  'agent.unfrozen': true,
  'agent.registered': true,
  'agent.limits_changed': true,
  'agent.api_key_rotated': true,
  'agent.api_key_issued': true,
  'agent.revoked': true,
  'agent.emergency_withdraw': true,
  'guard.tripped': true,
  'intent.accepted': true,
  'intent.blocked': true,
  'intent.submitting': true,
  'x402.payment_signed': true,
  'x402.payment_settled': true,
  'x402.payment_refused': true,
  'payment.received': true,
  'intent.confirmed': true,
  'intent.failed': true,
  'policy.limit_threshold': true,
  'budget.reserved': true,
  'budget.released': true,
  'budget.consumed': true,
  'policy.whitelist_amount_threshold': true,
  'policy.whitelist_voided': true,
  'group.spend_counted': true,
  'group.spend_released': true,
  'approval.requested': true,
  'approval.signed': true,
  'approval.decided': true,
  'governance.proposed': true,
  'governance.signed': true,
  'governance.executed': true,
  'governance.cancelled': true,
  'governance.expired': true,
  'governance.failed': true,
  'governance.secret_shown': true,
};
/** Every type of the domain's events, each once. */
export const DOMAIN_EVENT_TYPES = Object.keys(LISTED) as readonly EventType[];

const EVENT_TYPES: ReadonlySet<string> = new Set<string>(DOMAIN_EVENT_TYPES);

/**
 * The one decoder of recorded events: a domain event of a known type, or undefined for anything else
 * (another capability's events, such as idempotency records or webhooks). The log is written only by
 * this service, through the deciders, so a known type carries its data's shape.
 */
export function decodeEvent(recorded: { type: string; data: unknown }): DomainEvent | undefined {
  return EVENT_TYPES.has(recorded.type) ? (recorded as DomainEvent) : undefined;
}
