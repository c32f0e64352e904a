/**
 * One line a person reads for an event of the log, with names for addresses and symbols for amounts
 * ("buyer: transfer of 25 USDC to supplier accepted"), and the parts of it the log's table shows in
 * columns of their own (agent, counterparty, amount, memo, the intent it belongs to).
 */

export interface Described {
  text: string;
  agent?: string;
  counterparty?: string;
  /** An amount with its symbol. */
  amount?: string;
  memo?: string;
  intent?: string;
}

export interface Wording {
  /** The name of an address (its label, or its short form). */
  name(address: string): string;
  /** A mint's symbol. */
  symbol(mint: string): string;
  /** The group's base token's symbol. */
  base: string;
}

type Data = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The counterparty an event is about (a recipient, a destination, a sender), if it names one. */
export const counterpartyOf = (data: unknown): string | undefined => {
  const d = (data ?? {}) as Data;
  return (
    str(d.counterparty) ??
    str(d.recipient) ??
    str(d.destination) ??
    str(d.from) ??
    (typeof d.address === 'string' ? d.address : undefined)
  );
};

const REVOKED_BY: Record<string, string> = {
  emergency_withdraw: 'by the emergency withdrawal',
};

export function describeEvent(type: string, data: unknown, w: Wording): Described {
  const d = (data ?? {}) as Data;
  const agentId = str(d.agent_id);
  const agent = agentId && w.name(agentId);
  const to = counterpartyOf(d);
  const toName = to && w.name(to);
  const mint = str(d.mint);
  const amountOf = (amount: unknown, m = mint) =>
    typeof amount === 'string' ? `${amount} ${m ? w.symbol(m) : w.base}` : undefined;
  const who = agent ? `${agent}: ` : '';
  const base: Described = {
    text: type.replace(/[._]/g, ' '),
    ...(agent && { agent: agentId }),
    ...(to && { counterparty: to }),
    ...(str(d.intent_id) && { intent: str(d.intent_id) }),
    ...(str(d.memo) && { memo: str(d.memo) }),
  };
  const at = (text: string, amount?: string): Described => ({ ...base, text, ...(amount && { amount }) });
  switch (type) {
    case 'intent.accepted': {
      const amount = amountOf(d.amount);
      const held = d.held ? ', held for approval' : '';
      return at(`${who}${String(d.action)} of ${amount} to ${toName} accepted${held}`, amount);
    }
    case 'intent.blocked': {
      const amount = amountOf(d.attempted_amount);
      return at(
        `${who}${String(d.action)} of ${amount} to ${toName} refused (${String(d.code)}): ${String(d.message)}`,
        amount,
      );
    }
    case 'intent.submitting':
      return at(`${who}sent to the chain`);
    case 'intent.confirmed':
      return at(`${who}confirmed on chain (${String(d.tx_sig).slice(0, 8)}…)`);
    case 'intent.failed':
      return at(`${who}failed (${String(d.code)}): ${String(d.message)}`);
    case 'approval.requested': {
      const amount = amountOf(d.amount);
      const why = d.reason === 'new_recipient' ? 'its first spend to this recipient' : 'above the threshold';
      return at(`${who}${String(d.action)} of ${amount} to ${toName} held for approval (${why})`, amount);
    }
    case 'approval.signed':
      return at(`${w.name(String(d.approver))} signed a held spend`);
    case 'approval.decided':
      return at(`A held spend of ${agent ?? 'an agent'} was ${String(d.decision)}${decidedBy(d, w)}`);
    case 'payment.received': {
      const amount = amountOf(d.amount);
      return at(`${who}received ${amount} from ${toName}`, amount);
    }
    case 'whitelist.entry_added':
      return at(
        `${toName} allowed${d.approved_amount ? `, budget ${String(d.approved_amount)} ${w.base}` : ''}${
          typeof d.ttl_expires_at === 'number' ? `, until ${new Date(d.ttl_expires_at).toLocaleString()}` : ''
        }`,
      );
    case 'whitelist.entry_removed':
      return at(`${toName} removed from the allow-list`);
    case 'policy.whitelist_expiring':
      return at(`${toName}’s allow-list entry expires soon`);
    case 'policy.whitelist_voided':
      return at(`${toName}’s budget is used up`);
    case 'policy.whitelist_amount_threshold':
      return at(
        `${toName}’s budget passed a threshold: ${String(d.amount_used)} of ${String(d.approved_amount)} ${w.base}`,
      );
    case 'policy.limit_threshold':
      return at(`${who}passed its ${String(d.threshold)} limit’s threshold`);
    case 'agent.invited':
      return at(`${str(d.label) ?? 'An agent'} invited`);
    case 'agent.registered':
      return at(`${who}registered`);
    case 'agent.limits_changed':
      return at(`${who}limits changed`);
    case 'agent.api_key_rotated':
      return at(`${who}API key rotated (the old one refused from then on)`);
    case 'agent.revoked':
      return at(`${who}revoked ${REVOKED_BY[String(d.reason)] ?? 'by the operator'}`);
    case 'agent.emergency_withdraw': {
      const moved = Array.isArray(d.moved)
        ? (d.moved as Data[]).map((m) => amountOf(m.amount, str(m.mint))).join(', ')
        : '';
      return at(`${who}emergency withdrawal to ${toName}: ${moved || 'nothing held'}`);
    }
    case 'budget.reserved':
      return at(`${who}budget reserved ${String(d.amount)} ${w.base}`);
    case 'budget.consumed':
      return at(`Budget used ${String(d.amount)} ${w.base}`);
    case 'budget.released':
      return at('Budget reservation released');
    default:
      return base;
  }
}

/** Who decided a held spend, in words (and why, when a reason was given). */
export function decidedBy(d: Data, w: Wording): string {
  const by = Array.isArray(d.by) ? (d.by as string[]) : [];
  const reason = str(d.reason);
  if (d.decision === 'expired') return ': nobody decided in time';
  if (d.decision === 'rejected' && by.length === 0) return ` ${rejectedWithoutPerson(reason)}`;
  const names = by.map((b) => w.name(b)).join(', ');
  return ` by ${names}${reason ? ` (“${reason}”)` : ''}`;
}

/** A rejection no person made: the agent's revocation or its emergency withdrawal rejected its held spends. */
export function rejectedWithoutPerson(reason: string | undefined): string {
  if (reason === 'emergency withdrawal') return 'by the emergency withdrawal of its agent';
  if (reason === 'agent revoked') return 'when its agent was revoked';
  return `by the service${reason ? ` (${reason})` : ''}`;
}
