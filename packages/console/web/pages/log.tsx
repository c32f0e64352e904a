/**
 * The group's log: every event, filtered by agent, kind, counterparty and time, read a page at a time
 * by cursor (GET /audit/groups/{group}/events); each event of a spend opens its intent's story (GET
 * /audit/intents/{intent}: the decision, the approval, the outcome, the webhook deliveries); the
 * filtered log exported as CSV or NDJSON. The query has no counterparty filter: the page filters the
 * pages it reads by it (and reads on until it has a page's worth).
 */
import { useMemo, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { counterpartyOf, describeEvent, type Wording } from '../describe';
import { groupHref, type Route } from '../route';
import {
  Address,
  Dialog,
  Failure,
  Loading,
  Section,
  Status,
  Table,
  useAction,
  useLoad,
  type Names,
} from '../ui';
import { attemptError, csv } from '../words';
import { logPage, wholeLog } from './attention';
import { GroupFrame, wordingOf, type GroupData } from './frame';

type LogEvent = Schemas['AuditEventView'];
type Story = Schemas['IntentStoryResponse'];

/** The kinds a person filters by: each one event type or a few. */
export const KINDS: { value: string; label: string }[] = [
  { value: 'intent.accepted,intent.confirmed,intent.failed,intent.blocked', label: 'Spends (every outcome)' },
  { value: 'intent.blocked', label: 'Refused spends' },
  { value: 'intent.confirmed', label: 'Confirmed spends' },
  { value: 'intent.failed', label: 'Failed spends' },
  { value: 'approval.requested,approval.signed,approval.decided', label: 'Held spends and decisions' },
  { value: 'payment.received', label: 'Payments received' },
  {
    value: 'whitelist.entry_added,whitelist.entry_removed,policy.whitelist_expiring,policy.whitelist_voided',
    label: 'Allow-list changes',
  },
  {
    value:
      'agent.invited,agent.registered,agent.limits_changed,agent.api_key_rotated,agent.revoked,agent.emergency_withdraw',
    label: 'Agents: invitations, limits, keys, revocations',
  },
  {
    value:
      'group.created,group.approval_policy_set,group.limits_set,group.guard_set,auditor.granted,auditor.removed',
    label: 'The group’s settings',
  },
  { value: 'guard.tripped', label: 'The guard’s rules that tripped' },
  {
    value:
      'webhook.registered,webhook.secret_rotated,webhook.deleted,webhook.disabled,webhook.redelivery_requested',
    label: 'Webhook subscriptions',
  },
];

interface Filters {
  agent: string;
  type: string;
  counterparty: string;
  from: string;
  to: string;
}

const filtersOf = (q: URLSearchParams): Filters => ({
  agent: q.get('agent') ?? '',
  type: q.get('type') ?? '',
  counterparty: q.get('counterparty') ?? '',
  from: q.get('from') ?? '',
  to: q.get('to') ?? '',
});

/** A counterparty as typed (a label or an address) resolved to the address. */
const resolve = (text: string, names: Names): string =>
  Object.entries(names).find(([, name]) => name.toLowerCase() === text.toLowerCase())?.[0] ?? text;

/** The query route's part of the filters. */
const queryOf = (f: Filters) => ({
  ...(f.agent && { agent: f.agent }),
  ...(f.type && { type: f.type }),
  ...(f.from && { from: f.from }),
  ...(f.to && { to: f.to }),
});

const PAGE = 50;
/** Pages a "load more" reads at the most while the counterparty filter keeps too few of them. */
const PAGES_PER_LOOK = 20;

/**
 * The counterparty filter: the events naming it (a spend's decision, a payment's sender...) and the
 * later events of the same intents (their confirmation, their failure), which do not name it again.
 * `intents` carries on from page to page.
 */
function byCounterparty(counterparty: string | undefined, intents: Set<string>) {
  return (e: LogEvent): boolean => {
    if (!counterparty) return true;
    const intent = (e.data as { intent_id?: unknown } | null)?.intent_id;
    if (counterpartyOf(e.data) === counterparty) {
      if (typeof intent === 'string') intents.add(intent);
      return true;
    }
    return typeof intent === 'string' && intents.has(intent);
  };
}

/** Reads on from `cursor` until `PAGE` events pass the counterparty filter, or the log ends. */
async function readOn(
  group: string,
  f: Filters,
  counterparty: string | undefined,
  intents: Set<string>,
  cursor?: string,
) {
  const events: LogEvent[] = [];
  const keep = byCounterparty(counterparty, intents);
  for (let look = 0; look < PAGES_PER_LOOK; look++) {
    const page = await logPage(group, { ...queryOf(f), limit: PAGE, ...(cursor && { cursor }) });
    events.push(...page.events.filter(keep));
    cursor = page.next_cursor;
    if (!page.has_more) return { events, cursor, more: false };
    if (events.length >= PAGE) break;
  }
  return { events, cursor, more: true };
}

/** The whole filtered log, for an export: the service streams it (NDJSON). */
async function everything(group: string, f: Filters, counterparty: string | undefined): Promise<LogEvent[]> {
  return (await wholeLog(group, queryOf(f))).filter(byCounterparty(counterparty, new Set()));
}

function download(name: string, type: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const CSV_HEADER = [
  'recorded_at',
  'type',
  'description',
  'agent',
  'agent_label',
  'counterparty',
  'counterparty_label',
  'amount',
  'memo',
  'intent_id',
  'event_id',
  'stream',
  'revision',
  'position',
  'hash',
  'data',
];

export function csvOf(events: readonly LogEvent[], w: Wording, names: Names): string {
  return csv(
    CSV_HEADER,
    events.map((e) => {
      const x = describeEvent(e.type, e.data, w);
      return [
        e.recorded_at,
        e.type,
        x.text,
        x.agent ?? '',
        (x.agent && names[x.agent]) ?? '',
        x.counterparty ?? '',
        (x.counterparty && names[x.counterparty]) ?? '',
        x.amount ?? '',
        x.memo ?? '',
        x.intent ?? '',
        e.event_id,
        e.stream,
        e.revision,
        e.position,
        e.hash ?? '',
        e.data,
      ];
    }),
  );
}

/** A `datetime-local` input's value (local time) as ISO 8601, and back. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
const toLocal = (iso: string) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function FilterForm({ d, f }: { d: GroupData; f: Filters }) {
  return (
    <form
      class="row"
      noValidate
      aria-label="Filter the log"
      onSubmit={(e) => {
        e.preventDefault();
        const v = Object.fromEntries(new FormData(e.currentTarget as HTMLFormElement)) as Record<
          string,
          string
        >;
        location.hash = groupHref(d.id, 'log', {
          agent: v.agent ?? '',
          type: v.type ?? '',
          counterparty: (v.counterparty ?? '').trim(),
          from: toIso(v.from ?? ''),
          to: toIso(v.to ?? ''),
        });
      }}
    >
      <div class="field">
        <label for="log-agent">Agent</label>
        <select id="log-agent" name="agent">
          <option value="">any</option>
          {d.view.agents.map((a) => (
            <option
              key={a.agent_wallet_pda}
              value={a.agent_wallet_pda}
              selected={a.agent_wallet_pda === f.agent}
            >
              {a.label ?? a.agent_wallet_pda}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="log-kind">Kind</label>
        <select id="log-kind" name="type">
          <option value="">any</option>
          {KINDS.map((k) => (
            <option key={k.value} value={k.value} selected={k.value === f.type}>
              {k.label}
            </option>
          ))}
          {f.type && !KINDS.some((k) => k.value === f.type) && (
            <option value={f.type} selected>
              {f.type}
            </option>
          )}
        </select>
      </div>
      <div class="field">
        <label for="log-counterparty">Counterparty</label>
        <input
          id="log-counterparty"
          name="counterparty"
          defaultValue={f.counterparty}
          list="log-names"
          placeholder="label or address"
          autoComplete="off"
        />
        <datalist id="log-names">
          {[...new Set(Object.values(d.names))].slice(0, 500).map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
      </div>
      <div class="field">
        <label for="log-from">From</label>
        <input id="log-from" name="from" type="datetime-local" defaultValue={toLocal(f.from)} />
      </div>
      <div class="field">
        <label for="log-to">Until</label>
        <input id="log-to" name="to" type="datetime-local" defaultValue={toLocal(f.to)} />
      </div>
      <div class="actions field-line">
        <button type="submit">Apply filters</button>
        <a href={groupHref(d.id, 'log')}>Clear</a>
      </div>
    </form>
  );
}

/** A spend's story (GET /audit/intents/{intent}), in a dialog: also the guard page's. */
export function StoryDialog({ intent, d, onClose }: { intent: string; d: GroupData; onClose: () => void }) {
  const story = useLoad(
    () => ok(api.GET('/audit/intents/{intent}', { params: { path: { intent } } })),
    [intent],
  );
  const w = wordingOf(d);
  const s: Story | undefined = story.data;
  return (
    <Dialog title="The story of a spend" onClose={onClose} testId="story">
      {story.loading && <Loading what="its story" />}
      <Failure error={story.error} />
      {s && (
        <>
          <dl class="terms">
            <dt>Agent</dt>
            <dd>
              <Address id={s.agent_wallet_pda} names={d.names} />
            </dd>
            <dt>What</dt>
            <dd>{s.action ?? '—'}</dd>
            <dt>Decision</dt>
            <dd>
              <Status status={s.decision} />
            </dd>
            <dt>Outcome</dt>
            <dd>{s.outcome ? <Status status={s.outcome} /> : 'not settled'}</dd>
            <dt>Transaction</dt>
            <dd>{s.signature ? <code class="mono">{s.signature}</code> : 'none'}</dd>
            <dt>Intent</dt>
            <dd>
              <code class="mono">{s.intent_id}</code>
            </dd>
          </dl>
          <Table label="Its events" caption heads={['When', 'Event', 'What']}>
            {s.events.map((e) => (
              <tr key={e.event_id}>
                <td>
                  <time dateTime={e.recorded_at}>{new Date(e.recorded_at).toLocaleString()}</time>
                </td>
                <td class="mono nowrap">{e.type}</td>
                <td>{describeEvent(e.type, e.data, w).text}</td>
              </tr>
            ))}
          </Table>
          {s.deliveries.length > 0 ? (
            <Table
              label="Its webhook deliveries"
              caption
              heads={['Event', 'Status', 'Attempts', 'Last attempt']}
            >
              {s.deliveries.map((x) => (
                <tr key={`${x.webhook_id}-${x.event_id}`}>
                  <td class="mono">{x.event}</td>
                  <td>
                    <Status status={x.status} />
                  </td>
                  <td>{x.attempts}</td>
                  <td>{x.log.at(-1) ? attemptError(x.log.at(-1)!) : '—'}</td>
                </tr>
              ))}
            </Table>
          ) : (
            <p class="muted">No webhook delivery of its events.</p>
          )}
        </>
      )}
    </Dialog>
  );
}

function Log({ d, route }: { d: GroupData; route: Route }) {
  const f = filtersOf(route.query);
  const counterparty = f.counterparty ? resolve(f.counterparty, d.names) : undefined;
  const w = wordingOf(d);
  const key = route.query.toString();
  const [more, setMore] = useState<{ key: string; events: LogEvent[]; cursor?: string; more: boolean }>();
  // The intents the counterparty filter follows, from the first page on (one set per filter).
  const intents = useMemo(() => new Set<string>(), [key]);
  // Each page read says which filters it was read under: while the next filters load, the last
  // filters' events are not shown under them.
  const first = useLoad(
    async () => ({ key, ...(await readOn(d.id, f, counterparty, intents)) }),
    [d.id, key],
  );
  const [story, setStory] = useState<string>();
  const act = useAction();
  const exporting = useAction();
  const [exported, setExported] = useState<string>();
  const current = more?.key === key ? more : first.data?.key === key ? first.data : undefined;
  const events = current?.events ?? [];
  const name = `group-${d.id.slice(0, 8)}-log`;
  const exportAs = (format: 'csv' | 'ndjson') =>
    void exporting.run(async () => {
      const all = await everything(d.id, f, counterparty);
      if (format === 'csv') download(`${name}.csv`, 'text/csv', csvOf(all, w, d.names));
      else
        download(
          `${name}.ndjson`,
          'application/x-ndjson',
          all.map((e) => JSON.stringify(e)).join('\n') + '\n',
        );
      setExported(`Exported ${all.length} events as ${format.toUpperCase()}.`);
    });
  return (
    <>
      <Section title="Filters">
        <FilterForm key={key} d={d} f={f} />
        {counterparty && (
          <p class="muted">
            Events naming <Address id={counterparty} names={d.names} /> as their counterparty (recipient,
            sender, destination).
          </p>
        )}
      </Section>
      <Section
        title="Events"
        actions={
          <>
            <button type="button" class="secondary" disabled={exporting.busy} onClick={() => exportAs('csv')}>
              Export CSV
            </button>
            <button
              type="button"
              class="secondary"
              disabled={exporting.busy}
              onClick={() => exportAs('ndjson')}
            >
              Export NDJSON
            </button>
          </>
        }
      >
        {exported && <p role="status">{exported}</p>}
        <Failure error={exporting.error ?? first.error ?? act.error} />
        {first.loading && <Loading what="the log" />}
        {current && events.length === 0 && <p>No event matches these filters.</p>}
        {events.length > 0 && (
          <Table
            label="The group’s events, oldest first"
            heads={['When', 'Kind', 'Agent', 'What', 'Counterparty', 'Memo', 'Story']}
          >
            {events.map((e) => {
              const x = describeEvent(e.type, e.data, w);
              return (
                <tr key={e.event_id} data-testid="log-event" data-event={e.event_id}>
                  <td>
                    <time dateTime={e.recorded_at}>{new Date(e.recorded_at).toLocaleString()}</time>
                  </td>
                  <td class="mono nowrap">{e.type}</td>
                  <td>{x.agent ? <Address id={x.agent} names={d.names} /> : '—'}</td>
                  <td>{x.text}</td>
                  <td>{x.counterparty ? <Address id={x.counterparty} names={d.names} /> : '—'}</td>
                  <td>{x.memo ?? ''}</td>
                  <td>
                    {x.intent && (
                      <button type="button" class="secondary small" onClick={() => setStory(x.intent)}>
                        Story <span class="visually-hidden">of {x.text}</span>
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </Table>
        )}
        {current?.more && (
          <button
            type="button"
            class="secondary"
            disabled={act.busy}
            onClick={() =>
              void act.run(
                () => readOn(d.id, f, counterparty, intents, current.cursor),
                (next) =>
                  setMore({ key, events: [...events, ...next.events], cursor: next.cursor, more: next.more }),
              )
            }
          >
            Load more
          </button>
        )}
      </Section>
      {story && <StoryDialog intent={story} d={d} onClose={() => setStory(undefined)} />}
    </>
  );
}

export const LogPage = ({ group, route }: { group: string; route: Route }) => (
  <GroupFrame group={group} page="log">
    {(d) => <Log d={d} route={route} />}
  </GroupFrame>
);
