/**
 * Auditors and the audit query. A group's owner grants and removes read-only access to the group's
 * log for a wallet (`auditor.granted` / `auditor.removed` in the group's stream); the owner and the
 * auditors read the group's events as the log recorded them, and the whole story of one intent.
 *
 * Who belongs to a group is learnt from the log itself: the group's stream names its agents
 * (`agent.invited`) and its allow-list entries (`whitelist.entry_added`); the group's events are those
 * of its own stream, of each agent's stream, of the budget stream of each entry, of the payments to
 * each agent's wallet, and of the webhook streams of the group and of its agents. Nothing else (wallet
 * seeds, idempotency records, sign-ins) is ever shown, and sealed webhook secrets are left out.
 *
 * Reading is a walk of the global log in pages (`readAll`), in log order, from just before the
 * group's first event or from a cursor (the log position of the last event examined, opaque to the
 * client): a reader that never skips an event that commits late, so paging over a growing log never
 * repeats or skips. Ports only: the event store and the delivery store.
 */
import {
  authorizeOperator,
  authorizeReader,
  decideGrantAuditor,
  decideRemoveAuditor,
  type GroupState,
} from '../domain/group';
import { decodeEvent, streams, type IntentData } from '../domain/events';
import { ServiceError, validationError } from '../errors';
import {
  LOG_START,
  comparePositions,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
} from '../event-store/port';
import type { Delivery, DeliveryStore } from '../deliveries/port';
import { logPages } from '../event-store/pages';
import { derivePublicEvents, type DeriveContext } from '../events/catalogue';
import { isAddress } from '../domain/tokens';
import type { Context } from './context';
import { onGroup, type GovernedAction } from './governed';

// ---- access ----

async function groupOf(ctx: Pick<Context, 'groups'>, groupId: string): Promise<GroupState> {
  return (await ctx.groups.load(streams.group(groupId))).state;
}

/** The owner gives `auditor` read-only access to the group's log (again: nothing new is recorded). */
/** The SOL fee a confirmation recorded and who paid it; null for one recorded before fees were. */
function solFeeOf(data: Record<string, unknown>): { lamports: string; payer: string } | null {
  const { sol_fee_lamports: lamports, fee_payer: payer } = data;
  return typeof lamports === 'string' && typeof payer === 'string' ? { lamports, payer } : null;
}

export const AUDITOR_ACTIONS = {
  /**
   * Gives a wallet read-only access to the group's log (`{wallet}`): it hands out data, so a
   * proposal; a wallet that audits the group already is answered at once, nothing recorded.
   */
  'auditor.grant': onGroup(
    (params, state, now) => {
      const wallet = String(params.wallet);
      if (!isAddress(wallet))
        throw validationError([{ path: '/wallet', issue: 'must be a base58 ed25519 public key' }]);
      return decideGrantAuditor({ wallet, now }, state);
    },
    (groupId, after, _events, params) => ({
      group_config_pda: groupId,
      wallet: String(params.wallet),
      auditors: [...after.auditors],
    }),
    { idempotent: true, widens: (params, state) => !state.auditors.has(String(params.wallet)) },
  ),
} satisfies Record<string, GovernedAction>;

/** The group's auditors, as the owner sees them (granted, not removed since). */
export async function listAuditors(ctx: Context, owner: string, groupId: string) {
  const group = await groupOf(ctx, groupId);
  authorizeOperator(group, owner, 'read');
  return { group_config_pda: groupId, auditors: [...group.auditors] };
}

/** The owner takes an auditor's access away: from this append on, its token reads nothing of the group. */
export async function removeAuditor(ctx: Context, owner: string, groupId: string, auditor: string) {
  authorizeOperator(await groupOf(ctx, groupId), owner);
  const state = await ctx.groups.handle(streams.group(groupId), (s) => {
    const events = decideRemoveAuditor({ wallet: auditor, now: ctx.now() }, s);
    return { events, result: s };
  });
  return {
    group_config_pda: groupId,
    wallet: auditor,
    auditors: [...state.auditors].filter((w) => w !== auditor),
  };
}

/** The group, when `wallet` owns or audits it (`forbidden` otherwise; `not_found` when there is none). */
export async function readableGroup(
  ctx: Pick<Context, 'groups'>,
  wallet: string,
  groupId: string,
): Promise<GroupState> {
  // Read the stream itself: an auditor removed by another instance a moment ago reads no more.
  const state = await groupOf(ctx, groupId);
  authorizeReader(state, wallet);
  return state;
}

// ---- cursors ----

/** A log position as the opaque text clients page with. */
export const encodeCursor = (p: LogPosition): string =>
  Buffer.from(`${p.commit}:${p.prepare}`, 'utf8').toString('base64url');

/** The position a cursor names; `validation_error` on `/cursor` for anything this service did not hand out. */
export function decodeCursor(text: string): LogPosition {
  const match = /^(\d{1,20}):(\d{1,20})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match || encodeCursor({ commit: BigInt(match[1]!), prepare: BigInt(match[2]!) }) !== text)
    throw validationError([{ path: '/cursor', issue: 'is not a cursor this service handed out' }]);
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
}

// ---- who belongs to a group ----

const dataOf = (e: { data: unknown }): Record<string, unknown> =>
  e.data !== null && typeof e.data === 'object' ? (e.data as Record<string, unknown>) : {};

/** The streams of one group, learnt from its stream and kept current while the log is read. */
export class GroupScope {
  private readonly agents = new Set<string>();
  private readonly entries = new Set<string>();
  private readonly groupStream: string;

  constructor(
    readonly groupId: string,
    /** The position of the group's first event: nothing of the group comes before it. */
    readonly start: LogPosition,
  ) {
    this.groupStream = streams.group(groupId);
  }

  /** The scope of a group from its stream as it is now (undefined when the group has no events). */
  static async load(store: EventStore, groupId: string): Promise<GroupScope | undefined> {
    const events = await store.readStream(streams.group(groupId));
    if (events.length === 0) return undefined;
    const scope = new GroupScope(groupId, events[0]!.position);
    for (const e of events) scope.observe(e);
    return scope;
  }

  /** Learns members from an event of the group's stream (an agent invited, an entry added). */
  observe(e: RecordedEvent): void {
    if (e.stream !== this.groupStream) return;
    const d = dataOf(e);
    if (e.type === 'agent.invited' && typeof d.agent_id === 'string') this.agents.add(d.agent_id);
    if (e.type === 'whitelist.entry_added' && typeof d.entry_id === 'string') this.entries.add(d.entry_id);
  }

  hasAgent(agentId: string): boolean {
    return this.agents.has(agentId);
  }

  /** Whether an event of this stream belongs to the group. */
  includes(stream: string): boolean {
    if (
      stream === this.groupStream ||
      stream === streams.webhooks({ groupId: this.groupId }) ||
      stream === streams.approvals(this.groupId) ||
      stream === streams.proposals(this.groupId)
    )
      return true;
    const [prefix, id] = splitStream(stream);
    if (prefix === 'budget') return this.entries.has(id);
    if (prefix === 'agent' || prefix === 'payments' || prefix === 'webhooks-agent')
      return this.agents.has(id);
    return false;
  }
}

/** The kind and the id of a stream name (`webhooks-agent-<id>` before `agent-<id>`). */
function splitStream(stream: string): [string, string] {
  for (const prefix of ['webhooks-agent', 'budget', 'agent', 'payments']) {
    if (stream.startsWith(`${prefix}-`)) return [prefix, stream.slice(prefix.length + 1)];
  }
  return ['', ''];
}

/** The streams of one agent (its own, its wallet's payments, its webhooks). */
const agentStreams = (agentId: string): string[] => [
  streams.agent(agentId),
  streams.payments(agentId),
  streams.webhooks({ agentId }),
];

// ---- the events, as shown ----

export interface AuditEvent {
  /** The event's log position (a cursor: pass it back to read after it). */
  position: string;
  event_id: string;
  stream: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: { correlation_id: string | null; causation_id: string | null };
  recorded_at: string;
  /** Its link in its stream's hash chain (docs/audit.md), hex; null for events older than the chain. */
  hash: string | null;
}

/** Event data as an auditor sees it: sealed webhook secrets are left out. */
function shownData(e: RecordedEvent): unknown {
  const d = dataOf(e);
  if (!('sealed_secret' in d)) return e.data;
  const { sealed_secret: _sealed, ...rest } = d;
  return rest;
}

export function auditEventOf(e: RecordedEvent): AuditEvent {
  return {
    position: encodeCursor(e.position),
    event_id: e.id,
    stream: e.stream,
    revision: Number(e.revision),
    type: e.type,
    data: shownData(e),
    metadata: {
      correlation_id: typeof e.metadata.correlation_id === 'string' ? e.metadata.correlation_id : null,
      causation_id: typeof e.metadata.causation_id === 'string' ? e.metadata.causation_id : null,
    },
    recorded_at: e.metadata.timestamp,
    hash: e.hash ?? null,
  };
}

// ---- the query ----

export interface AuditFilter {
  /** Recorded at or after (epoch ms). */
  from?: number;
  /** Recorded before (epoch ms). */
  to?: number;
  /** Events of this agent: its streams, and any event naming it (`agent_id`). */
  agent?: string;
  /** Only these event types. */
  types?: readonly string[];
}

/** Whether an event of the group passes the filter (every condition given holds). */
export function matchesFilter(e: RecordedEvent, filter: AuditFilter): boolean {
  if (filter.types && !filter.types.includes(e.type)) return false;
  if (filter.from !== undefined || filter.to !== undefined) {
    const at = Date.parse(e.metadata.timestamp);
    if (filter.from !== undefined && at < filter.from) return false;
    if (filter.to !== undefined && at >= filter.to) return false;
  }
  if (filter.agent !== undefined)
    return agentStreams(filter.agent).includes(e.stream) || dataOf(e).agent_id === filter.agent;
  return true;
}

/** Log events read per page. */
export const AUDIT_READ_PAGE = 500;
/** A JSON page examines at most this many log events; past it, it answers what it found and a cursor. */
export const AUDIT_SCAN_BUDGET = 50_000;

export interface ReadResult {
  /** The last position examined: reading on after it neither repeats nor skips. */
  last: LogPosition;
  /** Whether the walk reached the end (the log's head, or `until`). */
  end: boolean;
}

/**
 * Walks the log after `after` (or from the group's first event), in log order, and hands each of the
 * group's events that passes the filter to `onEvent`; stops when `onEvent` answers false (at that
 * event), at `until` (inclusive) or the head, or once `maxScanned` log events were examined.
 */
export async function readGroupLog(
  store: EventStore,
  scope: GroupScope,
  filter: AuditFilter,
  options: {
    after?: LogPosition;
    until?: LogPosition;
    maxScanned?: number;
    onEvent(event: AuditEvent): boolean | Promise<boolean>;
  },
): Promise<ReadResult> {
  const beforeGroup = justBefore(scope.start);
  let last = options.after && comparePositions(options.after, beforeGroup) > 0 ? options.after : beforeGroup;
  let scanned = 0;
  for await (const page of logPages(store, { from: last, pageSize: AUDIT_READ_PAGE })) {
    for (const e of page) {
      if (options.until && comparePositions(e.position, options.until) > 0) return { last, end: true };
      last = e.position;
      scanned++;
      scope.observe(e);
      if (scope.includes(e.stream) && matchesFilter(e, filter) && !(await options.onEvent(auditEventOf(e))))
        return { last, end: false };
    }
    if (page.length < AUDIT_READ_PAGE) return { last, end: true };
    if (options.maxScanned !== undefined && scanned >= options.maxScanned) return { last, end: false };
  }
  return { last, end: true };
}

/** The position just before `p`: reading after it starts with the event at `p`. */
function justBefore(p: LogPosition): LogPosition {
  if (p.prepare > 0n) return { commit: p.commit, prepare: p.prepare - 1n };
  return p.commit > 0n ? { commit: p.commit - 1n, prepare: 0n } : LOG_START;
}

/** The group's scope when `wallet` may read it. */
export async function auditScope(ctx: Pick<Context, 'groups' | 'store'>, wallet: string, groupId: string) {
  await readableGroup(ctx, wallet, groupId);
  const scope = await GroupScope.load(ctx.store, groupId);
  if (!scope) throw new ServiceError('not_found', 'No such group.');
  return scope;
}

/** One page of the group's events: at most `limit`, and the cursor to read on from. */
export async function auditPage(
  ctx: Pick<Context, 'groups' | 'store'>,
  wallet: string,
  groupId: string,
  query: AuditFilter & { cursor?: string; limit: number },
) {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const scope = await auditScope(ctx, wallet, groupId);
  const events: AuditEvent[] = [];
  const { last, end } = await readGroupLog(ctx.store, scope, query, {
    ...(after && { after }),
    maxScanned: AUDIT_SCAN_BUDGET,
    onEvent: (e) => events.push(e) < query.limit,
  });
  return { events, next_cursor: encodeCursor(last), has_more: !end };
}

// ---- one intent's story ----

/** The webhook events a log event gave rise to (the catalogue's derivation), with their public ids. */
function publicEventsOf(e: RecordedEvent, ctx: DeriveContext): { kind: string; event_id: string }[] {
  const event = decodeEvent(e);
  if (!event) return [];
  return derivePublicEvents({ id: e.id, event }, ctx).map((p) => ({ kind: p.kind, event_id: p.eventId }));
}

const deliveryView = (d: Delivery) => ({
  webhook_id: d.webhook_id,
  event_id: d.event_id,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  created_at: new Date(d.created_at).toISOString(),
  updated_at: new Date(d.updated_at).toISOString(),
  log: d.log.map((a) => ({
    attempt: a.attempt,
    at: new Date(a.at).toISOString(),
    outcome: a.outcome,
    status_code: a.status_code ?? null,
    latency_ms: a.latency_ms,
    error: a.error ?? null,
  })),
});

/**
 * Everything the log and the delivery store hold about one intent, for the owner or an auditor of its
 * group: the decision (`intent.accepted` with its valuation, or `intent.blocked` with the check that
 * failed), the budget events naming it, a held spend's approval (its request, each approver's
 * signature, the decision), `intent.submitting` (the signature), the outcome, and the
 * webhook deliveries of the events derived from them. Found by the intent's correlation id (an index
 * on PostgreSQL), or by reading the log from its start.
 */
export async function intentStory(
  ctx: Pick<Context, 'groups' | 'store'>,
  deliveries: Pick<DeliveryStore, 'subscriptions' | 'deliveriesOf'>,
  wallet: string,
  intentId: string,
) {
  const ofIntent = (e: RecordedEvent) =>
    dataOf(e).intent_id === intentId && /^(agent|budget|approvals)-/.test(e.stream);
  // By the intent's correlation id where the store has an index; else, or for an intent recorded before
  // correlation ids were written, by a walk of the log from its start.
  const found = ctx.store.readCorrelated ? (await ctx.store.readCorrelated(intentId)).filter(ofIntent) : [];
  if (found.length === 0)
    for await (const page of logPages(ctx.store, { pageSize: AUDIT_READ_PAGE * 4 }))
      found.push(...page.filter(ofIntent));
  const decision = found.find(
    (e) => (e.type === 'intent.accepted' || e.type === 'intent.blocked') && e.stream.startsWith('agent-'),
  );
  if (!decision) throw new ServiceError('not_found', 'No such intent.');
  const d = dataOf(decision);
  const groupId = String(d.group_id);
  const agentId = String(d.agent_id);
  await readableGroup(ctx, wallet, groupId);
  const story = found.filter(
    (e) => e.stream === streams.agent(agentId) || /^(budget|approvals)-/.test(e.stream),
  );
  const derive: DeriveContext = {
    groupId,
    ...(decision.type === 'intent.accepted' && { intent: decision.data as IntentData }),
  };
  const derived = story.flatMap((e) => publicEventsOf(e, derive).map((p) => ({ ...p, log_event_id: e.id })));
  const subscriptions = await deliveries.subscriptions({ groupId });
  const sent = await deliveries.deliveriesOf(
    subscriptions.map((s) => s.webhook_id),
    derived.map((p) => p.event_id),
  );
  const outcome = story.find((e) => e.type === 'intent.confirmed' || e.type === 'intent.failed');
  const submitting = story.find((e) => e.type === 'intent.submitting');
  return {
    intent_id: intentId,
    group_config_pda: groupId,
    agent_wallet_pda: agentId,
    action: typeof d.action === 'string' ? d.action : null,
    decision: decision.type === 'intent.accepted' ? 'accepted' : 'blocked',
    signature: submitting ? (dataOf(submitting).signature as string) : null,
    outcome: outcome ? (outcome.type === 'intent.confirmed' ? 'confirmed' : 'failed') : null,
    sol_fee: outcome?.type === 'intent.confirmed' ? solFeeOf(dataOf(outcome)) : null,
    events: story.map(auditEventOf),
    webhook_events: derived,
    deliveries: sent.map(deliveryView),
  };
}
