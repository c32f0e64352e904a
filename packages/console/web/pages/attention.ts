/**
 * What waits for the person and what fails, for the overview and the groups list: held spends,
 * proposals the signed-in admin has not signed yet, subscriptions whose deliveries fail, allow-list
 * entries that expire soon (relative to their own lifetime, read from the log), spends refused in the
 * last hour, the guard's rules that tripped in the last 24 hours. Each is read from the operator routes.
 */
import { api, ok, type Schemas } from '../api';
import { session } from '../session';
import { endpointHealth, expiresSoon, type Health } from '../words';
import type { Entry, GroupView, Role } from './frame';

type Subscription = Schemas['WebhookSubscriptionView'];
type LogEvent = Schemas['AuditEventView'];
type LogPage = Schemas['AuditEventsResponse'];
export type LogQuery = {
  type?: string;
  from?: string;
  to?: string;
  agent?: string;
  cursor?: string;
  limit?: number;
};

/** One page of the group's log (the audit query, as JSON). */
export const logPage = (group: string, query: LogQuery): Promise<LogPage> =>
  ok(api.GET('/audit/groups/{group}/events', { params: { path: { group }, query } })) as Promise<LogPage>;

/** The whole of the group's log matching `query`, streamed by the service as NDJSON (one event a line). */
export async function wholeLog(group: string, query: LogQuery): Promise<LogEvent[]> {
  const text = (await ok(
    api
      .GET('/audit/groups/{group}/events', {
        params: { path: { group }, query },
        headers: { accept: 'application/x-ndjson' },
        parseAs: 'text',
      })
      // Nothing matched: an empty body, which the client answers as no data.
      .then((a) => (a.response.ok && a.data === undefined ? { ...a, data: '' } : a)),
  )) as string;
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogEvent);
}

/** When each allow-list entry of a group was added (ms), from its `whitelist.entry_added` event. */
const lifetimes = new Map<string, { added: Map<string, number>; cursor?: string }>();

export async function entriesAdded(group: string): Promise<Map<string, number>> {
  const known = lifetimes.get(group) ?? { added: new Map<string, number>() };
  // One streamed read of the log (NDJSON) rather than a page at a time; read on from the last one seen.
  const events = await wholeLog(group, {
    type: 'whitelist.entry_added',
    ...(known.cursor && { cursor: known.cursor }),
  });
  for (const e of events) {
    const d = e.data as { entry_id: string; at: number };
    known.added.set(d.entry_id, d.at);
  }
  lifetimes.set(group, { ...known, ...(events.length > 0 && { cursor: events.at(-1)!.position }) });
  return known.added;
}

/** The entries that expire soon, soonest first. */
export function expiringEntries(entries: readonly Entry[], added: Map<string, number>, now: number): Entry[] {
  return entries
    .filter((e) => {
      const from = added.get(e.whitelist_entry_pda);
      return (
        e.ttl_expires_at !== null &&
        from !== undefined &&
        expiresSoon(from, Date.parse(e.ttl_expires_at), now)
      );
    })
    .sort((a, b) => a.ttl_expires_at!.localeCompare(b.ttl_expires_at!));
}

export interface WebhookHealth {
  subscription: Subscription;
  health: Health;
}

/** Each subscription of the group not deleted, with the health of its endpoint from its latest deliveries. */
export async function webhookHealth(group: string): Promise<WebhookHealth[]> {
  const { webhooks } = await ok(
    api.GET('/orchestrator/groups/{group}/webhooks', { params: { path: { group } } }),
  );
  return Promise.all(
    webhooks
      .filter((w) => w.status !== 'deleted')
      .map(async (subscription) => {
        const { deliveries } = await ok(
          api.GET('/orchestrator/webhooks/{webhook}/deliveries', {
            params: { path: { webhook: subscription.webhook_id }, query: { limit: 20 } },
          }),
        );
        return { subscription, health: endpointHealth(subscription, deliveries) };
      }),
  );
}

/**
 * The pending proposals of the group the signed-in wallet has not signed: none for a wallet that is
 * no admin of it (it signs nothing), when its role is known.
 */
export async function proposalsToSign(group: string, role?: Role): Promise<number> {
  if (role !== undefined && role !== 'admin') return 0;
  const me = session()?.wallet;
  const { proposals } = await ok(
    api.GET('/orchestrator/groups/{group}/proposals', {
      params: { path: { group }, query: { status: 'pending' } },
    }),
  );
  return proposals.filter((p) => !p.signatures.some((s) => s.wallet === me)).length;
}

export interface Attention {
  held: number;
  /** Pending proposals the signed-in admin has not signed. */
  toSign: number;
  failing: WebhookHealth[];
  expiring: Entry[];
  /** Spends refused (`intent.blocked`) in the last hour; `refusedMore` when there were more than counted. */
  refused: number;
  refusedMore: boolean;
  /** The guard's rules that tripped (`guard.tripped`) in the last 24 hours, counted up to REFUSED_COUNTED. */
  tripped: number;
}

export const REFUSED_COUNTED = 100;

/** What waits and what fails in a group now (for the signed-in wallet, of `role` when known). */
export async function attentionOf(
  group: string,
  view: GroupView,
  { role, now = Date.now() }: { role?: Role; now?: number } = {},
): Promise<Attention> {
  const [held, toSign, hooks, added, refused, tripped] = await Promise.all([
    ok(
      api.GET('/orchestrator/groups/{group}/approvals', {
        params: { path: { group }, query: { status: 'pending' } },
      }),
    ),
    proposalsToSign(group, role),
    webhookHealth(group),
    entriesAdded(group),
    logPage(group, {
      type: 'intent.blocked',
      from: new Date(now - 3_600_000).toISOString(),
      limit: REFUSED_COUNTED,
    }),
    logPage(group, {
      type: 'guard.tripped',
      from: new Date(now - 86_400_000).toISOString(),
      limit: REFUSED_COUNTED,
    }),
  ]);
  return {
    held: held.approvals.length,
    toSign,
    failing: hooks.filter((h) => h.health.state === 'failing' || h.health.state === 'disabled'),
    expiring: expiringEntries(view.whitelist, added, now),
    refused: refused.events.length,
    refusedMore: refused.has_more && refused.events.length >= REFUSED_COUNTED,
    tripped: tripped.events.length,
  };
}
