/**
 * The event catalogue: every event kind a webhook can carry, what it means, its payload fields, and
 * the one event of the log it is derived from. This table is the single source; `docs/events.md`
 * repeats it and a test keeps the two equal (`npm run docs:events` rewrites it).
 *
 * A webhook is a projection of the log: each kind's `derive` is a pure function of one recorded event
 * (plus, where the log event does not carry it, the accepted intent it settles and the agent's group,
 * looked up by the caller). The `event_id` is derived from the log event's id and the kind, so a replay
 * or a retry gives the same id.
 *
 * `origin: 'spec'` kinds are the agent contract's, with exactly the payload fields it lists;
 * `origin: 'service'` kinds and the three `agent.*` payloads (which the spec leaves unshown) are this
 * product's own. Amounts are JSON numbers with the token's decimals (Big, printed exactly); times are
 * ISO 8601. A field with no value is null, never absent.
 */
import type Big from 'big.js';
import { createHash } from 'node:crypto';
import type { BudgetCause, DomainEvent, IntentData, X402Payment } from '../domain/events';
import { amountFromText } from '../money';

/** What a kind's `derive` may need beyond the log event itself. */
export interface DeriveContext {
  /** The accepted intent an outcome event settles (intent.confirmed carries only its id). */
  intent?: IntentData;
  /** The agent's group (events of the agent stream that do not name it). */
  groupId?: string;
}

export interface Derived {
  /** The agent the event is about: its agent webhooks receive it. Absent for group-level events. */
  agentId?: string;
  /** The group: its fleet webhooks receive it. */
  groupId?: string;
  fields: Record<string, unknown>;
}

interface KindRow<T extends DomainEvent['type']> {
  origin: 'spec' | 'service';
  meaning: string;
  /** Payload fields after `event` and `event_id`, in order. */
  fields: readonly string[];
  /** The log event it comes from. */
  from: T;
  /** Which lookups `derive` needs: the settled intent, the agent's group. */
  needs?: readonly ('intent' | 'group')[];
  derive(event: Extract<DomainEvent, { type: T }>, ctx: DeriveContext): Derived | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const amount = (text: string | undefined): Big | null => (text === undefined ? null : amountFromText(text));

/** A confirmation of one action: the accepted intent tells what it was. */
function confirmed<A extends IntentData['action']>(
  action: A,
  fields: (intent: Extract<IntentData, { action: A }>, received: Big | null) => Record<string, unknown>,
) {
  return (e: Extract<DomainEvent, { type: 'intent.confirmed' }>, ctx: DeriveContext): Derived | undefined => {
    const intent = ctx.intent;
    if (intent?.action !== action) return undefined;
    return {
      agentId: intent.agent_id,
      groupId: intent.group_id,
      fields: {
        agent_wallet_pda: intent.agent_id,
        group_config_pda: intent.group_id,
        tx_signature: e.data.tx_sig,
        ...fields(intent as Extract<IntentData, { action: A }>, amount(e.data.received_amount)),
        task_id: intent.task_id ?? null,
        confirmed_at: iso(e.data.at),
      },
    };
  };
}

const blocked = (e: Extract<DomainEvent, { type: 'intent.blocked' }>): Derived => ({
  agentId: e.data.agent_id,
  groupId: e.data.group_id,
  fields: {
    agent_wallet_pda: e.data.agent_id,
    error: { code: e.data.code, details: e.data.message },
    attempted_amount: amountFromText(e.data.attempted_amount),
    blocked_at: iso(e.data.at),
  },
});

/** A row of the catalogue: `derive` sees the log event `from` names. */
const row = <T extends DomainEvent['type']>(r: KindRow<T>): KindRow<T> => r;

/** A budget alert reaches the agent whose spend crossed it, and its group (when the event names them). */
const budgetAudience = (d: BudgetCause) => ({
  ...(d.agent_id && { agentId: d.agent_id }),
  ...(d.group_id && { groupId: d.group_id }),
});

/** An approval's events reach its agent's webhooks and its group's, and name all three. */
type Approving = { approval_id: string; agent_id: string; group_id: string };
const approvalAudience = (d: Approving) => ({ agentId: d.agent_id, groupId: d.group_id });
const approvalOf = (d: Approving) => ({
  approval_id: d.approval_id,
  agent_wallet_pda: d.agent_id,
  group_config_pda: d.group_id,
});

const CONFIRMED = ['agent_wallet_pda', 'group_config_pda', 'tx_signature'] as const;
const BLOCKED = ['agent_wallet_pda', 'error', 'attempted_amount', 'blocked_at'] as const;

/** An x402 payment's webhook: its payment's fields, `before` after the group and `after` at the end. */
function x402Payment(
  e: { data: X402Payment & { resource?: { status: number } } },
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Derived {
  return {
    agentId: e.data.agent_id,
    groupId: e.data.group_id,
    fields: {
      agent_wallet_pda: e.data.agent_id,
      group_config_pda: e.data.group_id,
      ...before,
      url: e.data.url,
      pay_to: e.data.pay_to,
      amount: amountFromText(e.data.amount),
      resource_status: e.data.resource?.status ?? null,
      ...after,
    },
  };
}

export const EVENT_CATALOGUE = {
  'transfer.confirmed': row({
    origin: 'spec',
    meaning: 'A transfer was confirmed on chain.',
    fields: [...CONFIRMED, 'amount', 'fee', 'recipient', 'memo', 'task_id', 'confirmed_at'],
    from: 'intent.confirmed',
    needs: ['intent'],
    derive: confirmed('transfer', (i) => ({
      amount: amountFromText(i.amount),
      fee: amountFromText(i.protocol_fee),
      recipient: i.counterparty,
      memo: i.memo ?? null,
    })),
  }),
  'x402.payment_settled': row({
    origin: 'service',
    meaning:
      "An x402 payment (POST /api/v1/x402/pay) landed: the resource's facilitator settled it; the intent's transfer.confirmed follows once its protocol fee is taken.",
    fields: [
      'agent_wallet_pda',
      'group_config_pda',
      'tx_signature',
      'url',
      'pay_to',
      'amount',
      'resource_status',
      'settled_at',
    ],
    from: 'x402.payment_settled',
    derive: (e) => x402Payment(e, { tx_signature: e.data.tx_sig }, { settled_at: iso(e.data.at) }),
  }),
  'x402.payment_refused': row({
    origin: 'service',
    meaning:
      "An x402 resource answered a signed payment without settling it. It holds the payment and can still land it until block `valid_until_block`; the amount stays reserved against the agent's limits until then, after which the payment's transfer.confirmed (it landed) or the refusal (it did not) follows. A resource that does this often is worth a look.",
    fields: [
      'agent_wallet_pda',
      'group_config_pda',
      'url',
      'pay_to',
      'amount',
      'resource_status',
      'valid_until_block',
      'refused_at',
    ],
    from: 'x402.payment_refused',
    derive: (e) =>
      x402Payment(
        e,
        {},
        { valid_until_block: Number(e.data.last_valid_block_height), refused_at: iso(e.data.at) },
      ),
  }),
  'swap.confirmed': row({
    origin: 'service',
    meaning: 'A swap was confirmed on chain.',
    fields: [
      ...CONFIRMED,
      'from_mint',
      'to_mint',
      'amount_in',
      'amount_out',
      'aggregator',
      'task_id',
      'confirmed_at',
    ],
    from: 'intent.confirmed',
    needs: ['intent'],
    derive: confirmed('swap', (i, received) => ({
      from_mint: i.mint,
      to_mint: i.params.to_mint,
      amount_in: amountFromText(i.amount),
      amount_out: received,
      aggregator: i.counterparty,
    })),
  }),
  'deposit.confirmed': row({
    origin: 'service',
    meaning: 'A deposit to a lending venue was confirmed on chain.',
    fields: [...CONFIRMED, 'lending_program', 'mint', 'amount', 'receipt_amount', 'task_id', 'confirmed_at'],
    from: 'intent.confirmed',
    needs: ['intent'],
    derive: confirmed('deposit', (i, received) => ({
      lending_program: i.counterparty,
      mint: i.mint,
      amount: amountFromText(i.amount),
      receipt_amount: received,
    })),
  }),
  'withdraw.confirmed': row({
    origin: 'service',
    meaning: 'A withdrawal from a lending venue was confirmed on chain.',
    fields: [
      ...CONFIRMED,
      'lending_program',
      'receipt_mint',
      'receipt_amount',
      'received_amount',
      'task_id',
      'confirmed_at',
    ],
    from: 'intent.confirmed',
    needs: ['intent'],
    derive: confirmed('withdraw', (i, received) => ({
      lending_program: i.counterparty,
      receipt_mint: i.mint,
      receipt_amount: amountFromText(i.amount),
      received_amount: received,
    })),
  }),
  'payment.received': row({
    origin: 'spec',
    meaning:
      "An outside party sent tokens to the agent (or another agent's emergency withdrawal moved its tokens there).",
    fields: ['agent_wallet_pda', 'tx_signature', 'amount', 'from', 'received_at'],
    from: 'payment.received',
    needs: ['group'],
    derive: (e, ctx) => ({
      agentId: e.data.agent_id,
      ...(ctx.groupId && { groupId: ctx.groupId }),
      fields: {
        agent_wallet_pda: e.data.agent_id,
        tx_signature: e.data.tx_signature,
        amount: amountFromText(e.data.amount),
        from: e.data.from,
        received_at: iso(e.data.at),
      },
    }),
  }),
  'policy.transfer_blocked': row({
    origin: 'spec',
    meaning: 'A spending attempt was refused; one for each refused attempt.',
    fields: BLOCKED,
    from: 'intent.blocked',
    derive: blocked,
  }),
  'policy.whitelist_violation': row({
    origin: 'spec',
    meaning: 'A spending attempt was refused because its counterparty is not on the allow-list.',
    fields: BLOCKED,
    from: 'intent.blocked',
    derive: (e) => (e.data.code === 'whitelist_violation' ? blocked(e) : undefined),
  }),
  'policy.limit_threshold': row({
    origin: 'spec',
    meaning:
      'The agent crossed 80 % of its daily limit, or of its hourly transaction cap, within the window.',
    fields: ['agent_wallet_pda', 'threshold', 'spent_today', 'daily_limit'],
    from: 'policy.limit_threshold',
    needs: ['group'],
    derive: (e, ctx) => ({
      agentId: e.data.agent_id,
      ...(ctx.groupId && { groupId: ctx.groupId }),
      fields: {
        agent_wallet_pda: e.data.agent_id,
        threshold: e.data.threshold,
        spent_today: amountFromText(e.data.spent_today),
        daily_limit: amountFromText(e.data.daily_limit),
      },
    }),
  }),
  'policy.whitelist_expiring': row({
    origin: 'spec',
    meaning: "An allow-list entry's TTL fell under 24 hours; once per entry.",
    fields: ['group_config_pda', 'whitelist_entry_pda', 'recipient', 'label', 'ttl_expires_at'],
    from: 'policy.whitelist_expiring',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        group_config_pda: e.data.group_id,
        whitelist_entry_pda: e.data.entry_id,
        recipient: e.data.recipient,
        label: e.data.label ?? null,
        ttl_expires_at: iso(e.data.ttl_expires_at),
      },
    }),
  }),
  'policy.whitelist_amount_threshold': row({
    origin: 'spec',
    meaning: 'An allow-list entry has used 80 % of its approved_amount (the spend that crossed it).',
    fields: ['whitelist_entry_pda', 'recipient', 'amount_used', 'approved_amount'],
    from: 'policy.whitelist_amount_threshold',
    derive: (e) => ({
      ...budgetAudience(e.data),
      fields: {
        whitelist_entry_pda: e.data.entry_id,
        recipient: e.data.recipient,
        amount_used: amountFromText(e.data.amount_used),
        approved_amount: amountFromText(e.data.approved_amount),
      },
    }),
  }),
  'policy.whitelist_voided': row({
    origin: 'spec',
    meaning: 'An allow-list entry was voided once its full approved_amount was used.',
    fields: ['whitelist_entry_pda', 'recipient', 'final_amount_used', 'voided_at'],
    from: 'policy.whitelist_voided',
    derive: (e) => ({
      ...budgetAudience(e.data),
      fields: {
        whitelist_entry_pda: e.data.entry_id,
        recipient: e.data.recipient,
        final_amount_used: amountFromText(e.data.final_amount_used),
        voided_at: iso(e.data.at),
      },
    }),
  }),
  'agent.api_key_rotated': row({
    origin: 'spec',
    meaning: "The operator rotated the agent's API key; the old key no longer works.",
    fields: ['agent_wallet_pda', 'group_config_pda', 'rotated_at'],
    from: 'agent.api_key_rotated',
    needs: ['group'],
    derive: (e, ctx) => ({
      agentId: e.data.agent_id,
      ...(ctx.groupId && { groupId: ctx.groupId }),
      fields: {
        agent_wallet_pda: e.data.agent_id,
        group_config_pda: ctx.groupId ?? null,
        rotated_at: iso(e.data.at),
      },
    }),
  }),
  'agent.revoked': row({
    origin: 'spec',
    meaning: 'The operator revoked the agent; no spending instruction succeeds any more.',
    fields: ['agent_wallet_pda', 'group_config_pda', 'reason', 'revoked_at'],
    from: 'agent.revoked',
    needs: ['group'],
    derive: (e, ctx) => ({
      agentId: e.data.agent_id,
      ...(ctx.groupId && { groupId: ctx.groupId }),
      fields: {
        agent_wallet_pda: e.data.agent_id,
        group_config_pda: ctx.groupId ?? null,
        reason: e.data.reason,
        revoked_at: iso(e.data.at),
      },
    }),
  }),
  'agent.emergency_withdraw': row({
    origin: 'spec',
    meaning: 'The operator drained the agent: its venue positions redeemed, every token moved out.',
    fields: ['agent_wallet_pda', 'group_config_pda', 'destination', 'moved', 'withdrawn_at'],
    from: 'agent.emergency_withdraw',
    derive: (e) => ({
      agentId: e.data.agent_id,
      groupId: e.data.group_id,
      fields: {
        agent_wallet_pda: e.data.agent_id,
        group_config_pda: e.data.group_id,
        destination: e.data.destination,
        moved: e.data.moved.map((m) => ({
          mint: m.mint,
          amount: amountFromText(m.amount),
          tx_signature: m.tx_sig,
        })),
        withdrawn_at: iso(e.data.at),
      },
    }),
  }),
  'approval.requested': row({
    origin: 'service',
    meaning:
      'A spend passed every check but is held for a person (above the approval threshold, or the first to a new recipient); it is reserved and waits for the approvers.',
    fields: [
      'approval_id',
      'agent_wallet_pda',
      'group_config_pda',
      'action',
      'amount',
      'mint',
      'value_in_base',
      'counterparty',
      'reason',
      'quorum',
      'expires_at',
    ],
    from: 'approval.requested',
    derive: (e) => ({
      ...approvalAudience(e.data),
      fields: {
        ...approvalOf(e.data),
        action: e.data.action,
        amount: amountFromText(e.data.amount),
        mint: e.data.mint,
        value_in_base: amountFromText(e.data.value_in_base),
        counterparty: e.data.counterparty,
        reason: e.data.reason,
        quorum: e.data.quorum,
        expires_at: iso(e.data.expires_at),
      },
    }),
  }),
  'approval.decided': row({
    origin: 'service',
    meaning:
      'A held spend was decided: approved (its approvers reached the quorum; it is executed next), rejected (by an approver, or by the revocation or emergency withdrawal of its agent) or expired.',
    fields: ['approval_id', 'agent_wallet_pda', 'group_config_pda', 'decision', 'by', 'reason', 'decided_at'],
    from: 'approval.decided',
    derive: (e) => ({
      ...approvalAudience(e.data),
      fields: {
        ...approvalOf(e.data),
        decision: e.data.decision,
        by: e.data.by,
        reason: e.data.reason ?? null,
        decided_at: iso(e.data.at),
      },
    }),
  }),
  'guard.tripped': row({
    origin: 'service',
    meaning:
      'A guard rule of the group tripped on a spend of the agent: `hold` held it for approval (the approval names the rule), `freeze_agent` refused it and froze the agent (agent.frozen by "guard" follows).',
    fields: [
      'agent_wallet_pda',
      'group_config_pda',
      'intent_id',
      'rule',
      'action',
      'figures',
      'words',
      'tripped_at',
    ],
    from: 'guard.tripped',
    derive: (e) => ({
      agentId: e.data.agent_id,
      groupId: e.data.group_id,
      fields: {
        agent_wallet_pda: e.data.agent_id,
        group_config_pda: e.data.group_id,
        intent_id: e.data.intent_id,
        rule: e.data.rule,
        action: e.data.action,
        figures: e.data.figures,
        words: e.data.words,
        tripped_at: iso(e.data.at),
      },
    }),
  }),
  'agent.frozen': row({
    origin: 'service',
    meaning:
      'An admin (or the guard: `by` is "guard") froze the agent (the kill switch): every spend of it is refused (agent_frozen) until a proposal lifts it; what it had accepted and not submitted failed.',
    fields: ['agent_wallet_pda', 'group_config_pda', 'by', 'reason', 'frozen_at'],
    from: 'agent.frozen',
    derive: (e) => ({
      agentId: e.data.agent_id,
      groupId: e.data.group_id,
      fields: {
        agent_wallet_pda: e.data.agent_id,
        group_config_pda: e.data.group_id,
        by: e.data.by,
        reason: e.data.reason ?? null,
        frozen_at: iso(e.data.at),
      },
    }),
  }),
  'agent.unfrozen': row({
    origin: 'service',
    meaning: 'A proposal of the group’s admins lifted the agent’s freeze: it spends again.',
    fields: ['agent_wallet_pda', 'group_config_pda', 'proposal_id', 'unfrozen_at'],
    from: 'agent.unfrozen',
    derive: (e) => ({
      agentId: e.data.agent_id,
      groupId: e.data.group_id,
      fields: {
        agent_wallet_pda: e.data.agent_id,
        group_config_pda: e.data.group_id,
        proposal_id: e.data.proposal_id ?? null,
        unfrozen_at: iso(e.data.at),
      },
    }),
  }),
  'group.frozen': row({
    origin: 'service',
    meaning:
      'An admin froze the whole group (the kill switch): every spend of every agent of it is refused (group_frozen) until a proposal lifts it.',
    fields: ['group_config_pda', 'by', 'reason', 'frozen_at'],
    from: 'group.frozen',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        group_config_pda: e.data.group_id,
        by: e.data.by,
        reason: e.data.reason ?? null,
        frozen_at: iso(e.data.at),
      },
    }),
  }),
  'group.unfrozen': row({
    origin: 'service',
    meaning: 'A proposal of the group’s admins lifted the group’s freeze: its agents spend again.',
    fields: ['group_config_pda', 'proposal_id', 'unfrozen_at'],
    from: 'group.unfrozen',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        group_config_pda: e.data.group_id,
        proposal_id: e.data.proposal_id ?? null,
        unfrozen_at: iso(e.data.at),
      },
    }),
  }),
  'governance.proposed': row({
    origin: 'service',
    meaning:
      'An admin proposed a change that widens what agents may spend; it executes once a quorum of admins signed its message.',
    fields: ['proposal_id', 'group_config_pda', 'action', 'params', 'proposed_by', 'expires_at'],
    from: 'governance.proposed',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        proposal_id: e.data.proposal_id,
        group_config_pda: e.data.group_id,
        action: e.data.action,
        params: e.data.params,
        proposed_by: e.data.proposed_by,
        expires_at: iso(e.data.expires_at),
      },
    }),
  }),
  'governance.signed': row({
    origin: 'service',
    meaning: 'An admin signed a proposal’s message with its wallet.',
    fields: ['proposal_id', 'group_config_pda', 'wallet', 'signed_at'],
    from: 'governance.signed',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        proposal_id: e.data.proposal_id,
        group_config_pda: e.data.group_id,
        wallet: e.data.wallet,
        signed_at: iso(e.data.at),
      },
    }),
  }),
  'governance.executed': row({
    origin: 'service',
    meaning: 'A proposal had its quorum and its delay passed: the service made its change.',
    fields: ['proposal_id', 'group_config_pda', 'signers', 'quorum', 'executed_at'],
    from: 'governance.executed',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        proposal_id: e.data.proposal_id,
        group_config_pda: e.data.group_id,
        signers: e.data.signers,
        quorum: e.data.quorum,
        executed_at: iso(e.data.at),
      },
    }),
  }),
  'governance.cancelled': row({
    origin: 'service',
    meaning: 'An admin cancelled a proposal before it executed: nothing changed.',
    fields: ['proposal_id', 'group_config_pda', 'by', 'reason', 'cancelled_at'],
    from: 'governance.cancelled',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        proposal_id: e.data.proposal_id,
        group_config_pda: e.data.group_id,
        by: e.data.by,
        reason: e.data.reason ?? null,
        cancelled_at: iso(e.data.at),
      },
    }),
  }),
  'governance.failed': row({
    origin: 'service',
    meaning:
      'A proposal was due but its change no longer applied (what it lifts is not frozen any more, its agent revoked): nothing changed.',
    fields: ['proposal_id', 'group_config_pda', 'reason', 'failed_at'],
    from: 'governance.failed',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        proposal_id: e.data.proposal_id,
        group_config_pda: e.data.group_id,
        reason: e.data.reason,
        failed_at: iso(e.data.at),
      },
    }),
  }),
  'governance.expired': row({
    origin: 'service',
    meaning: 'A proposal reached its expiry (7 days) without executing: nothing changed.',
    fields: ['proposal_id', 'group_config_pda', 'expired_at'],
    from: 'governance.expired',
    derive: (e) => ({
      groupId: e.data.group_id,
      fields: {
        proposal_id: e.data.proposal_id,
        group_config_pda: e.data.group_id,
        expired_at: iso(e.data.at),
      },
    }),
  }),
} as const;

export type EventKind = keyof typeof EVENT_CATALOGUE;
export const EVENT_KINDS = Object.keys(EVENT_CATALOGUE) as EventKind[];
export const isEventKind = (name: string): name is EventKind => Object.hasOwn(EVENT_CATALOGUE, name);

/** One webhook event derived from the log: the payload and who receives it. */
export interface PublicEvent {
  kind: EventKind;
  eventId: string;
  agentId?: string;
  groupId?: string;
  /** `event`, `event_id`, then the kind's fields in the catalogue's order. */
  payload: Record<string, unknown>;
}

/** Stable across replays and retries: the log event's id (a UUID fixed at append) and the kind. */
export const publicEventId = (logEventId: string, kind: EventKind): string =>
  `evt_${createHash('sha256').update(`${logEventId}:${kind}`).digest('hex').slice(0, 32)}`;

/** Which log event types any kind derives from, and which lookups they need. */
export function needsOf(type: string): { derives: boolean; intent: boolean; group: boolean } {
  let derives = false;
  let intent = false;
  let group = false;
  for (const row of Object.values(EVENT_CATALOGUE) as KindRow<DomainEvent['type']>[]) {
    if (row.from !== type) continue;
    derives = true;
    intent ||= row.needs?.includes('intent') ?? false;
    group ||= row.needs?.includes('group') ?? false;
  }
  return { derives, intent, group };
}

/** The webhook events one log event gives (often none). Pure. */
export function derivePublicEvents(
  recorded: { id: string; event: DomainEvent },
  ctx: DeriveContext,
): PublicEvent[] {
  const out: PublicEvent[] = [];
  for (const kind of EVENT_KINDS) {
    const row = EVENT_CATALOGUE[kind] as KindRow<DomainEvent['type']>;
    if (row.from !== recorded.event.type) continue;
    const derived = row.derive(recorded.event as never, ctx);
    if (!derived) continue;
    const eventId = publicEventId(recorded.id, kind);
    out.push({
      kind,
      eventId,
      ...(derived.agentId && { agentId: derived.agentId }),
      ...(derived.groupId && { groupId: derived.groupId }),
      payload: { event: kind, event_id: eventId, ...derived.fields },
    });
  }
  return out;
}
