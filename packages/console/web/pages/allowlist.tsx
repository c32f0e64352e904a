/**
 * A group's allow-list as a table (search, filter by kind and by expiry, sort): each entry's budget
 * used, what its own daily limit counted in the last 24 hours, its lifetime and the time left, "expires soon" relative to its own lifetime (when it was
 * added is read from the log). Removing an entry asks first, saying what stops working; allowing a
 * recipient takes its budget and a lifetime in days or hours.
 */
import { useMemo, useState } from 'preact/hooks';
import { enacted } from '../signin';
import { api, ok } from '../api';
import type { Route } from '../route';
import {
  Address,
  Badge,
  ConfirmDialog,
  DataTable,
  Field,
  FormBox,
  Gauge,
  Section,
  useForm,
  useLoad,
  useNow,
  type Column,
} from '../ui';
import { countdown, expiresSoon, span } from '../words';
import { entriesAdded } from './attention';
import { GroupFrame, useReloadOn, type Entry, type GroupData } from './frame';

const KINDS = { 0: 'agent of the group', 1: 'recipient', 2: 'protocol' } as const;

/** What removing an entry stops, in words. */
function whatRemovalBreaks(e: Entry, d: GroupData): string {
  const name = e.label ?? d.names[e.address] ?? 'this address';
  if (e.type === 2 && e.label === 'aggregator')
    return `Every swap of the group’s agents goes through the aggregator: from now on they are all refused, until it is allowed again.`;
  if (e.type === 2) return `Spends to ${name} (a protocol: deposits, withdrawals) are refused from now on.`;
  return `Spends to ${name} are refused from now on, and its budget ends (${e.budget_used ?? '0'} of ${e.approved_amount} ${d.base} used): allowing it again starts a new budget.`;
}

const ADD_FIELDS = {
  address: { label: 'Address', kind: 'address', required: true },
  label: { label: 'Label' },
  approved_amount: { label: 'Budget', kind: 'amount', required: true, positive: true },
  lifetime: { label: 'Lifetime', kind: 'number', required: true, positive: true, api: 'ttl_seconds' },
} as const;

const UNIT_SECONDS = { days: 86_400, hours: 3_600 } as const;

function AddEntry({ d }: { d: GroupData }) {
  const form = useForm(ADD_FIELDS);
  return (
    <>
      <h3>Allow a recipient</h3>
      <FormBox
        form={form}
        label="Allow a recipient"
        onSubmit={form.submit(
          (f) =>
            enacted(
              api.POST('/orchestrator/groups/{group}/whitelist', {
                params: { path: { group: d.id } },
                body: {
                  address: f.address!,
                  type: 1,
                  ...(f.label && { label: f.label }),
                  approved_amount: f.approved_amount!,
                  ttl_seconds: Math.round(
                    Number(f.lifetime) * UNIT_SECONDS[f.unit as keyof typeof UNIT_SECONDS],
                  ),
                },
              }),
            ),
          d.reload,
        )}
      >
        <Field form={form} name="address" />
        <Field form={form} name="label" />
        <Field form={form} name="approved_amount" hint={d.base} />
        <Field form={form} name="lifetime" defaultValue="30" />
        <div class="field">
          <label for="lifetime-unit">Lifetime in</label>
          <select id="lifetime-unit" name="unit">
            <option value="days" selected>
              days
            </option>
            <option value="hours">hours</option>
          </select>
        </div>
        <button type="submit" disabled={form.busy}>
          Allow
        </button>
      </FormBox>
    </>
  );
}

function AllowList({ d, route }: { d: GroupData; route: Route }) {
  const now = useNow();
  const [removing, setRemoving] = useState<Entry>();
  useReloadOn(d.id, /^(whitelist|policy\.whitelist|budget)\./, d.reload);
  const added = useLoad(() => entriesAdded(d.id), [d.id, d.view]);
  const lifetime = (e: Entry) => {
    const from = added.data?.get(e.whitelist_entry_pda);
    return from !== undefined && e.ttl_expires_at ? Date.parse(e.ttl_expires_at) - from : undefined;
  };
  const soon = (e: Entry) => {
    const from = added.data?.get(e.whitelist_entry_pda);
    return (
      from !== undefined && e.ttl_expires_at !== null && expiresSoon(from, Date.parse(e.ttl_expires_at), now)
    );
  };
  const columns: Column<Entry>[] = [
    {
      key: 'entry',
      head: 'Recipient',
      cell: (e) => <Address id={e.address} names={d.names} />,
      sort: (e) => (e.label ?? e.address).toLowerCase(),
    },
    { key: 'kind', head: 'Kind', cell: (e) => KINDS[e.type], sort: (e) => e.type },
    {
      key: 'budget',
      head: 'Budget used',
      cell: (e) =>
        e.approved_amount !== null ? (
          <Gauge
            label={`${e.label ?? e.address} budget`}
            used={e.budget_used ?? '0'}
            limit={e.approved_amount}
            unit={d.base}
          />
        ) : (
          'no budget'
        ),
      sort: (e) => (e.approved_amount ? Number(e.budget_used ?? 0) / Number(e.approved_amount) : -1),
    },
    {
      key: 'daily',
      head: 'Last 24 hours',
      cell: (e) =>
        e.daily_limit !== null ? (
          <Gauge
            label={`${e.label ?? e.address} daily limit`}
            used={e.spent_last_24h ?? '0'}
            limit={e.daily_limit}
            unit={d.base}
          />
        ) : (
          'no daily limit'
        ),
      sort: (e) => (e.daily_limit ? Number(e.spent_last_24h ?? 0) / Number(e.daily_limit) : -1),
    },
    {
      key: 'lifetime',
      head: 'Lifetime',
      cell: (e) => {
        const ms = lifetime(e);
        return e.ttl_expires_at === null ? 'no end' : ms === undefined ? '…' : span(ms);
      },
      sort: (e) => lifetime(e) ?? Infinity,
    },
    {
      key: 'expires',
      head: 'Expires',
      cell: (e) =>
        e.ttl_expires_at ? (
          <>
            <time dateTime={e.ttl_expires_at} title={new Date(e.ttl_expires_at).toLocaleString()}>
              {countdown(e.ttl_expires_at, now)}
            </time>
            {soon(e) && (
              <>
                {' '}
                <Badge tone="warn">expires soon</Badge>
              </>
            )}
          </>
        ) : (
          'never'
        ),
      sort: (e) => e.ttl_expires_at ?? '\uffff',
    },
    {
      key: 'remove',
      head: 'Actions',
      hiddenHead: true,
      cell: (e) =>
        e.type !== 0 && (
          <button type="button" class="secondary small" onClick={() => setRemoving(e)}>
            Remove <span class="visually-hidden">{e.label ?? e.address}</span>
          </button>
        ),
    },
  ];
  const q = route.query;
  const minute = Math.floor(now / 60_000);
  const filters = useMemo(
    () => [
      {
        name: 'kind',
        label: 'Kind',
        options: [
          { value: 'external', label: 'recipients and protocols', test: (e: Entry) => e.type !== 0 },
          { value: 'recipient', label: 'recipients', test: (e: Entry) => e.type === 1 },
          { value: 'protocol', label: 'protocols', test: (e: Entry) => e.type === 2 },
          { value: 'agent', label: 'agents of the group', test: (e: Entry) => e.type === 0 },
        ],
      },
      {
        name: 'expiry',
        label: 'Expiry',
        options: [
          { value: 'soon', label: 'expires soon', test: soon },
          { value: 'never', label: 'never expires', test: (e: Entry) => e.ttl_expires_at === null },
        ],
      },
    ],
    [added.data, minute],
  );
  return (
    <Section title="Allow-list">
      <DataTable
        key={q.toString()}
        label="Allow-list entries"
        testId="allow-list"
        rows={d.view.whitelist}
        columns={columns}
        rowKey={(e) => e.whitelist_entry_pda}
        search={(e) => `${e.label ?? ''} ${e.address}`}
        empty="Nothing allowed yet."
        initial={{
          q: q.get('q') ?? '',
          // Soonest to expire first; the agents' own entries (made for them) apart unless asked for.
          sort: q.get('sort') ?? 'expires',
          filters: {
            kind: q.get('kind') ?? 'external',
            ...(q.get('expiry') && { expiry: q.get('expiry')! }),
          },
        }}
        filters={filters}
      />
      <AddEntry d={d} />
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.label ?? 'this entry'} from the allow-list?`}
          breaks={<p>{whatRemovalBreaks(removing, d)}</p>}
          confirm="Remove"
          onClose={() => setRemoving(undefined)}
          onConfirm={async () => {
            await ok(
              api.DELETE('/orchestrator/groups/{group}/whitelist/{entry}', {
                params: { path: { group: d.id, entry: removing.whitelist_entry_pda } },
              }),
            );
            d.reload();
          }}
        />
      )}
    </Section>
  );
}

export const AllowListPage = ({ group, route }: { group: string; route: Route }) => (
  <GroupFrame group={group} page="allow-list">
    {(d) => <AllowList d={d} route={route} />}
  </GroupFrame>
);
