/**
 * One line a person reads for an event of the log, with names for addresses and symbols for amounts
 * ("buyer: transfer of 25 USDC to supplier accepted"), and the parts of it the log's table shows in
 * columns of their own (agent, counterparty, amount, memo, the intent it belongs to).
 */
import { clock, span } from './words';

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

/** Who froze or cancelled: a wallet by its name, or the guard (`by: "guard"`, a freeze by its rules). */
const byName = (by: string, w: Wording): string => (by === GUARD ? 'the guard' : w.name(by));

/** "by <who>", and the reason in quotes when one was given (a freeze's, a cancel's). */
const byWhom = (d: Data, w: Wording): string =>
  `by ${byName(String(d.by), w)}${str(d.reason) ? ` (“${str(d.reason)}”)` : ''}`;

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
      const why =
        d.reason === 'new_recipient'
          ? 'its first spend to this recipient'
          : d.reason === 'guard'
            ? `the guard: ${tripNames(d.guard)}`
            : 'above the threshold';
      const rules = d.reason !== 'guard' && Array.isArray(d.guard) && d.guard.length > 0;
      return at(
        `${who}${String(d.action)} of ${amount} to ${toName} held for approval (${why}${
          rules ? `; and the guard: ${tripNames(d.guard)}` : ''
        })`,
        amount,
      );
    }
    case 'guard.tripped':
      return at(
        `${who}the guard’s ${ruleName(String(d.rule))} rule tripped: ${String(d.words)}; ${
          d.action === 'freeze_agent' ? 'the agent is frozen' : 'the spend is held for approval'
        }`,
      );
    case 'group.limits_set':
      return at(`The group’s limits set: ${groupLimitsWords(d, w.base)}`);
    case 'group.guard_set':
      return at(
        `The guard’s rules set: ${
          Array.isArray(d.rules) && d.rules.length > 0
            ? (d.rules as Data[]).map((r) => ruleName(String(r.kind))).join(', ')
            : 'none'
        }`,
      );
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
        }${d.daily_limit ? `, at most ${String(d.daily_limit)} ${w.base} a day` : ''}`,
      );
    case 'whitelist.daily_limit_set':
      return at(
        d.daily_limit === null
          ? `${toName}’s daily limit lifted`
          : `${toName}’s daily limit set to ${String(d.daily_limit)} ${w.base}`,
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
    case 'agent.frozen':
      return at(`${who}frozen ${byWhom(d, w)}`);
    case 'agent.unfrozen':
      return at(`${who}freeze lifted`);
    case 'group.frozen':
      return at(`The group was frozen ${byWhom(d, w)}`);
    case 'group.unfrozen':
      return at('The group’s freeze was lifted');
    case 'member.added':
      return at(`${w.name(String(d.wallet))} is a member: ${String(d.role)}`);
    case 'member.removed':
      return at(`${w.name(String(d.wallet))} is no longer a member`);
    case 'governance.policy_set':
      return at(`Governance set: ${governanceWords(d, w)}`);
    case 'governance.proposed':
      return at(
        `${w.name(String(d.proposed_by))} proposed to ${proposalWords(String(d.action), (d.params ?? {}) as Data, w)}`,
      );
    case 'governance.signed':
      return at(`${w.name(String(d.wallet))} signed a proposal`);
    case 'governance.executed':
      return at(
        `A proposal was executed, signed by ${((d.signers ?? []) as string[]).map(w.name).join(', ')}`,
      );
    case 'governance.cancelled':
      return at(`A proposal was cancelled ${byWhom(d, w)}`);
    case 'governance.expired':
      return at('A proposal expired: not enough admins signed it in time');
    case 'governance.failed':
      return at(`A proposal failed: ${String(d.reason)}`);
    default:
      return base;
  }
}

/** An amount as a person reads it: its whole part grouped by thousands ("1,000", "12,500.5"). */
export function grouped(amount: unknown): string {
  const text = String(amount);
  const [whole = '', fraction] = text.split('.');
  if (!/^\d+$/.test(whole)) return text;
  const withCommas = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? withCommas : `${withCommas}.${fraction}`;
}

/** A length in seconds, in words ("30 days", "2 h"). */
const seconds = (s: unknown) => span(Number(s) * 1000);

/** Limits as given (any of the four), in words: "10 USDC a transaction, 50 USDC a day, 5 an hour". */
function limitsWords(l: Data, base: string): string {
  const parts = [
    l.per_tx_limit !== undefined && `${grouped(l.per_tx_limit)} ${base} a transaction`,
    l.daily_limit !== undefined && `${grouped(l.daily_limit)} ${base} a day`,
    l.hourly_tx_cap !== undefined && `${String(l.hourly_tx_cap)} transactions an hour`,
    l.approval_threshold !== undefined &&
      (l.approval_threshold === null
        ? 'the group’s approval threshold'
        : `held above ${grouped(l.approval_threshold)} ${base}`),
  ].filter(Boolean);
  return parts.join(', ');
}

/** A governance policy (any of its fields), in words. */
export function governanceWords(p: Data, w: Wording): string {
  const parts = [
    p.quorum !== undefined &&
      `quorum ${String(p.quorum)} (each widening change signed by ${String(p.quorum)} admin${p.quorum === 1 ? '' : 's'})`,
    p.delay_seconds !== undefined &&
      (Number(p.delay_seconds) === 0 ? 'no delay' : `a delay of ${seconds(p.delay_seconds)}`),
    str(p.safe_destination) && `safe destination ${w.name(String(p.safe_destination))}`,
  ].filter(Boolean);
  return parts.join(', ');
}

const ROLE_WORDS: Record<string, string> = {
  admin: 'an admin',
  approver: 'an approver',
  viewer: 'a viewer',
};

/**
 * What a proposal would change, in words a person reads before signing it ("allow-list 7xK…: 1,000
 * USDC for 30 days", "invite an agent", "lift the freeze of agent buyer"), from its action and the
 * parameters it records (docs/governance.md; the contract's `Proposal.params`).
 */
export function proposalWords(action: string, params: Data, w: Wording): string {
  const agent = str(params.agent) && w.name(String(params.agent));
  switch (action) {
    case 'group.unfreeze':
      return 'lift the freeze of the group';
    case 'agent.unfreeze':
      return `lift the freeze of agent ${agent}`;
    case 'member.add':
      return `make ${w.name(String(params.wallet))} ${ROLE_WORDS[String(params.role)] ?? String(params.role)}`;
    case 'member.remove':
      return `remove the member ${w.name(String(params.wallet))}`;
    case 'governance.set':
      return `set the governance: ${governanceWords(params, w)}`;
    case 'allow_list.add': {
      const kind = params.type === 2 ? 'the protocol ' : '';
      const named = w.name(String(params.address));
      const label = str(params.label) && str(params.label) !== named ? ` (“${str(params.label)}”)` : '';
      const budget =
        params.approved_amount !== undefined && params.approved_amount !== null
          ? `: ${grouped(params.approved_amount)} ${w.base}`
          : '';
      const lifetime = params.ttl_seconds !== undefined ? ` for ${seconds(params.ttl_seconds)}` : '';
      const daily =
        params.daily_limit !== undefined && params.daily_limit !== null
          ? `, at most ${grouped(params.daily_limit)} ${w.base} a day`
          : '';
      return `allow-list ${kind}${named}${label}${budget}${lifetime}${daily}`;
    }
    case 'allow_list.daily_limit': {
      const entry = `the allow-list entry ${w.name(String(params.entry))}`;
      return params.daily_limit === null || params.daily_limit === undefined
        ? `lift the daily limit of ${entry}`
        : `raise the daily limit of ${entry} to ${grouped(params.daily_limit)} ${w.base}`;
    }
    case 'agent.invite': {
      const label = str(params.label) ? ` “${str(params.label)}”` : '';
      const limits = params.limits ? limitsWords(params.limits as Data, w.base) : '';
      return `invite an agent${label}${limits ? ` with ${limits}` : ''}`;
    }
    case 'agent.limits':
      return `change the limits of agent ${agent}: ${limitsWords((params.limits ?? {}) as Data, w.base)}`;
    case 'approval_policy.set': {
      const threshold =
        params.threshold === null || params.threshold === undefined
          ? 'no threshold'
          : `hold spends above ${grouped(params.threshold)} ${w.base}`;
      const first = params.new_recipients ? ' and the first spend to each recipient' : '';
      const approvers = Array.isArray(params.approvers)
        ? (params.approvers as string[]).map(w.name).join(', ')
        : 'the owner';
      const quorum = params.quorum ?? 1;
      return `set the approval policy: ${threshold}${first}; ${String(quorum)} of ${approvers} decide${
        params.ttl_seconds !== undefined ? ` within ${seconds(params.ttl_seconds)}` : ''
      }`;
    }
    case 'auditor.grant':
      return `grant ${w.name(String(params.wallet))} the audit of the group`;
    case 'agent.emergency_withdraw':
      return `withdraw everything agent ${agent} holds to ${
        str(params.destination) ? w.name(String(params.destination)) : 'the safe destination'
      }`;
    case 'agent.issue_key':
      return `issue a new API key to agent ${agent}`;
    case 'group.update': {
      const parts = [
        str(params.name) && `name it “${str(params.name)}”`,
        str(params.description) && 'change its description',
        limitsWords(params, w.base) && `new agents’ defaults ${limitsWords(params, w.base)}`,
      ].filter(Boolean);
      return `change the group: ${parts.join(', ') || 'nothing named'}`;
    }
    case 'group.limits':
      return `set the group’s limits: ${groupLimitsWords(params, w.base)}`;
    case 'group.guard': {
      const rules = Array.isArray(params.rules) ? (params.rules as Data[]) : [];
      return rules.length === 0
        ? 'remove every guard rule'
        : `set the guard’s rules: ${rules.map((r) => ruleName(String(r.kind))).join(', ')}`;
    }
    case 'webhook.register': {
      const kinds = Array.isArray(params.event_types) ? params.event_types.length : undefined;
      return `send the group’s events to ${String(params.url)}${kinds !== undefined ? ` (${kinds} event kinds)` : ''}`;
    }
    default:
      return action.replace(/[._]/g, ' ');
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

/** Who froze an agent when its guard's rule did: `frozen.by` and `agent.frozen`'s `by`. */
export const GUARD = 'guard';

/**
 * A freeze (who, why, when) in words: "since 14:02, by you: “prompt injection suspected”"; a freeze
 * by the guard says the rule and what it measured: "since 14:02, by the guard: “velocity: 2 spends …”".
 */
export function frozenWords(
  f: { by: string; reason: string | null; at: string },
  name: (address: string) => string,
  now = Date.now(),
): string {
  const by = f.by === GUARD ? 'the guard' : name(f.by);
  return `since ${clock(f.at, now)}, by ${by}${f.reason ? `: “${f.reason}”` : ' (no reason given)'}`;
}

// ---- the guard (docs/guard.md): its rules, its trips and the group's own limits, in words ----

/** A guard rule as the service answers it (GET .../guard). */
export type GuardRuleData = Data & { kind: string; action?: string };

/** The rules' kinds, in the order the console lists them, with their names. */
export const RULE_NAMES: Record<string, string> = {
  velocity: 'velocity',
  burst: 'burst',
  new_counterparty: 'new counterparty',
  new_token: 'new token',
  refusals: 'refusals',
  quiet_hours: 'quiet hours',
};
export const ruleName = (kind: string): string => RULE_NAMES[kind] ?? kind.replace(/_/g, ' ');

/** What a rule's action does, in words. */
export const actionWords = (action: unknown): string =>
  action === 'freeze_agent' ? 'refuse the spend and freeze the agent' : 'hold the spend for approval';

/** A fraction ("0.5") as a percentage ("50 %"), for reading only. */
export function percent(fraction: unknown): string {
  const n = Number(fraction);
  return Number.isFinite(n) ? `${Number((n * 100).toFixed(4))} %` : String(fraction);
}

/** When a rule trips, in words (its parameters as a person reads them). */
export function ruleCondition(r: GuardRuleData): string {
  switch (r.kind) {
    case 'velocity':
      return `its spends in the last hour number more than ${String(r.factor)} × its usual hourly count (over 7 days), and at least ${String(r.min_count)}`;
    case 'burst':
      return `what it spends within ${seconds(r.window_seconds)} is more than ${percent(r.fraction)} of its daily limit`;
    case 'new_counterparty':
      return 'it spends to a recipient or protocol of the allow-list for the first time';
    case 'new_token':
      return 'it spends a token for the first time';
    case 'refusals':
      return `${String(r.count)} of its spends are refused within ${seconds(r.window_seconds)}`;
    case 'quiet_hours':
      return `it spends between ${String(r.from)} and ${String(r.to)} (${String(r.time_zone)} time)`;
    default:
      return r.kind.replace(/_/g, ' ');
  }
}

/** A rule in words: "Velocity: when …: hold the spend for approval." */
export function ruleWords(r: GuardRuleData): string {
  const name = ruleName(r.kind);
  return `${name[0]!.toUpperCase()}${name.slice(1)}: when ${ruleCondition(r)}, ${actionWords(r.action)}.`;
}

/** The rules a held spend tripped, by name ("velocity, new token"). */
const tripNames = (guard: unknown): string =>
  Array.isArray(guard) ? (guard as Data[]).map((t) => ruleName(String(t.rule))).join(', ') : 'a rule';

/** The group's own limits as set or asked (either may be absent, null lifts it), in words. */
export function groupLimitsWords(l: Data, base: string): string {
  const parts = [
    l.daily_limit !== undefined &&
      (l.daily_limit === null ? 'no daily limit' : `${grouped(l.daily_limit)} ${base} a day`),
    l.hourly_tx_cap !== undefined &&
      (l.hourly_tx_cap === null ? 'no hourly cap' : `${String(l.hourly_tx_cap)} operations an hour`),
  ].filter(Boolean);
  return parts.join(', ') || 'nothing named';
}
