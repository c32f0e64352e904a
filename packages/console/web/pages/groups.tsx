/**
 * The wallet's groups (GET /orchestrator/groups), each with its role in it and what waits for the
 * person in it (a freeze, proposals to sign, held spends, failing webhooks, entries about to expire,
 * spends refused in the last hour, the guard's rules that tripped in the last day), and a form to create one with its default limits.
 */
import { api, ok, type Schemas } from '../api';
import { groupHref } from '../route';
import { Badge, Failure, Field, FormBox, Loading, Section, short, Table, useForm, useLoad } from '../ui';
import { attentionOf, REFUSED_COUNTED } from './attention';
import { symbolOf, tokens } from './frame';

type Listed = Schemas['GroupListResponse']['groups'][number];

/** What waits in a group, as links to where it is acted on. */
function Waiting({ group, role }: { group: string; role: Listed['role'] }) {
  const attention = useLoad(async () => {
    const view = await ok(api.GET('/orchestrator/groups/{group}', { params: { path: { group } } }));
    return { ...(await attentionOf(group, view, { role })), frozen: view.frozen !== null };
  }, [group, role]);
  const a = attention.data;
  if (attention.error) return <Failure error={attention.error} />;
  if (!a) return <span class="muted">…</span>;
  const items = [
    a.frozen && (
      <a key="frozen" href={groupHref(group)}>
        <Badge tone="bad">frozen</Badge>
      </a>
    ),
    a.toSign > 0 && (
      <a key="proposals" href={groupHref(group, 'inbox')}>
        <Badge tone="warn">
          {a.toSign} proposal{a.toSign === 1 ? '' : 's'} to sign
        </Badge>
      </a>
    ),
    a.held > 0 && (
      <a key="held" href={groupHref(group, 'inbox')}>
        <Badge tone="warn">{a.held} held</Badge>
      </a>
    ),
    a.failing.length > 0 && (
      <a key="hooks" href={groupHref(group, 'webhooks')}>
        <Badge tone="bad">
          {a.failing.length} failing webhook{a.failing.length === 1 ? '' : 's'}
        </Badge>
      </a>
    ),
    a.expiring.length > 0 && (
      <a key="expiring" href={groupHref(group, 'allow-list', { expiry: 'soon' })}>
        <Badge tone="warn">{a.expiring.length} expiring soon</Badge>
      </a>
    ),
    a.refused > 0 && (
      <a
        key="refused"
        href={groupHref(group, 'log', {
          type: 'intent.blocked',
          from: new Date(Date.now() - 3_600_000).toISOString(),
        })}
      >
        <Badge tone="bad">
          {a.refused}
          {a.refusedMore ? '+' : ''} refused in the last hour
        </Badge>
      </a>
    ),
    a.tripped > 0 && (
      <a key="tripped" href={groupHref(group, 'guard')}>
        <Badge tone="bad">
          {a.tripped}
          {a.tripped >= REFUSED_COUNTED ? '+' : ''} tripped the guard (24 h)
        </Badge>
      </a>
    ),
  ].filter(Boolean);
  return items.length > 0 ? <span class="wallets">{items}</span> : <span class="muted">nothing</span>;
}

function GroupRow({ g, symbol }: { g: Listed; symbol: string }) {
  const l = g.default_limits;
  return (
    <tr>
      <td>
        <a href={groupHref(g.group_config_pda)}>
          <span class="mono" title={g.group_config_pda}>
            {short(g.group_config_pda)}
          </span>
        </a>
      </td>
      <td>
        <Waiting group={g.group_config_pda} role={g.role} />
      </td>
      <td>{g.role}</td>
      <td>{g.agents}</td>
      <td>{g.whitelist_entries}</td>
      <td>
        {l.per_tx_limit} / {l.daily_limit} {symbol} / {l.hourly_tx_cap} tx
      </td>
      <td>{new Date(g.created_at).toLocaleString()}</td>
    </tr>
  );
}

const CREATE_FIELDS = {
  per_tx_limit: { label: 'Per-transaction limit', kind: 'amount', required: true },
  daily_limit: { label: 'Daily limit', kind: 'amount', required: true },
  hourly_tx_cap: { label: 'Transactions an hour', kind: 'integer', required: true, min: 0 },
} as const;

export function Groups() {
  const groups = useLoad(() => ok(api.GET('/orchestrator/groups')));
  const registry = useLoad(tokens);
  const form = useForm(CREATE_FIELDS);
  const list = groups.data?.groups;
  return (
    <>
      <h1>Groups</h1>
      <Section title="Your groups">
        {groups.loading && <Loading what="your groups" />}
        <Failure error={groups.error} />
        {list && list.length === 0 && (
          <p>The wallet you signed in with is a member of no group yet: create one below.</p>
        )}
        {list && list.length > 0 && (
          <Table
            label="Your groups"
            heads={[
              'Group',
              'Waiting for you',
              'Your role',
              'Agents',
              'Allow-list',
              'Defaults: per tx / daily / hourly',
              'Created',
            ]}
          >
            {list.map((g) => (
              <GroupRow key={g.group_config_pda} g={g} symbol={symbolOf(registry.data, g.base_mint)} />
            ))}
          </Table>
        )}
      </Section>
      <Section title="Create a group">
        <FormBox
          form={form}
          label="Create a group"
          onSubmit={form.submit(
            (f) =>
              api.POST('/orchestrator/groups', {
                body: {
                  per_tx_limit: f.per_tx_limit!,
                  daily_limit: f.daily_limit!,
                  hourly_tx_cap: Number(f.hourly_tx_cap),
                },
              }),
            (created) => void (location.hash = groupHref(created.group_config_pda)),
          )}
        >
          <Field form={form} name="per_tx_limit" defaultValue="100" />
          <Field form={form} name="daily_limit" defaultValue="1000" />
          <Field form={form} name="hourly_tx_cap" defaultValue="60" />
          <button type="submit" disabled={form.busy}>
            Create group
          </button>
        </FormBox>
      </Section>
    </>
  );
}
