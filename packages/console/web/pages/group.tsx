/**
 * A group at a glance: its agents (status, limits with what each has used now, balances, last
 * activity) and what an operator does to one (change limits, rotate its key, revoke, the emergency
 * withdrawal); the allow-list (TTL counting down, budget used); inviting an agent; live events.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { Failure, GroupTabs, Section, ShownOnce, Short, countdown, useAction, useLoad, useNow } from '../ui';
import { LiveEvents } from './live';
import { SpendChart } from './spend';

type Agent = Schemas['GroupResponse']['agents'][number];
type Usage = Schemas['GroupUsageResponse']['agents'][number];
type Entry = Schemas['GroupResponse']['whitelist'][number];

/**
 * A gauge: `used` of `limit`, as the service wrote them (decimal strings). The meter's numbers are
 * for drawing only; the text beside it is the service's own.
 */
function Gauge({
  label,
  used,
  limit,
  unit = '',
  caption,
}: {
  label: string;
  used: string;
  limit: string;
  unit?: string;
  caption?: string;
}) {
  return (
    <div class="gauge">
      {caption && <span class="caption">{caption}</span>}
      <meter
        aria-label={label}
        min={0}
        max={Number(limit) || 1}
        value={Number(used)}
        high={(Number(limit) || 1) * 0.8}
      />
      <span data-testid={label}>
        {used} / {limit}
        {unit}
      </span>
    </div>
  );
}

function AgentRow({ agent, usage, onChange }: { agent: Agent; usage?: Usage; onChange: () => void }) {
  const act = useAction();
  const [shown, setShown] = useState<string>();
  const [open, setOpen] = useState<'limits' | 'withdraw'>();
  const [withdrawn, setWithdrawn] = useState<Schemas['EmergencyWithdrawResponse']>();
  const closed = () => {
    setOpen(undefined);
    onChange();
  };
  const id = agent.agent_wallet_pda;
  const path = { params: { path: { agent: id } } };
  const name = agent.label ?? id;
  const live = agent.status !== 'revoked';
  return (
    <li class="agent card" aria-label={`Agent ${name}`}>
      <h3>
        {agent.label ?? 'Agent'} <Short id={id} />{' '}
        <span class={`status ${agent.status}`}>{agent.status}</span>
      </h3>
      <div class="gauges">
        <p class="gauge">
          <span class="caption">Per transaction</span> up to {agent.limits.per_tx_limit}
        </p>
        <Gauge
          caption="Last 24 hours"
          label={`${name} daily`}
          used={usage?.spent_today ?? '0'}
          limit={agent.limits.daily_limit}
        />
        <Gauge
          caption="Last hour"
          label={`${name} hourly`}
          used={String(usage?.hourly_count ?? 0)}
          limit={String(agent.limits.hourly_tx_cap)}
          unit=" tx"
        />
      </div>
      <p>
        Balances:{' '}
        {usage && Object.keys(usage.balances).length > 0
          ? Object.entries(usage.balances)
              .map(([token, amount]) => `${amount} ${token}`)
              .join(', ')
          : 'none'}
        {' · '}Last activity:{' '}
        {usage?.last_activity_at ? new Date(usage.last_activity_at).toLocaleString() : 'none yet'}
      </p>
      {live && (
        <div class="actions">
          <button type="button" onClick={() => setOpen(open === 'limits' ? undefined : 'limits')}>
            Change limits
          </button>
          <button
            type="button"
            disabled={act.busy}
            onClick={() =>
              act.call(
                () => api.POST('/orchestrator/agents/{agent}/rotate-key', path),
                (a) => setShown(a.api_key),
              )
            }
          >
            Rotate key
          </button>
          <button
            type="button"
            disabled={act.busy}
            onClick={() =>
              confirm(`Revoke ${name}? Its key is refused from now on, for good.`) &&
              act.call(() => api.POST('/orchestrator/agents/{agent}/revoke', path), onChange)
            }
          >
            Revoke
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => setOpen(open === 'withdraw' ? undefined : 'withdraw')}
          >
            Emergency withdrawal
          </button>
        </div>
      )}
      {shown && <ShownOnce label="The new API key" value={shown} />}
      {withdrawn && (
        <p role="status">
          Withdrawn to <Short id={withdrawn.destination} />:{' '}
          {withdrawn.moved.length === 0
            ? 'it held nothing'
            : withdrawn.moved.map((m) => `${m.amount} ${m.token}`).join(', ')}
          {withdrawn.failed_intents > 0 && `; ${withdrawn.failed_intents} pending intent(s) failed`}.
        </p>
      )}
      {open === 'limits' && (
        <form
          class="row"
          onSubmit={act.submit(
            (f) =>
              api.PATCH('/orchestrator/agents/{agent}/limits', {
                ...path,
                body: {
                  per_tx_limit: f.per_tx_limit!,
                  daily_limit: f.daily_limit!,
                  hourly_tx_cap: Number(f.hourly_tx_cap),
                },
              }),
            closed,
          )}
        >
          <label>
            Per transaction
            <input
              name="per_tx_limit"
              required
              inputMode="decimal"
              defaultValue={agent.limits.per_tx_limit}
            />
          </label>
          <label>
            Daily
            <input name="daily_limit" required inputMode="decimal" defaultValue={agent.limits.daily_limit} />
          </label>
          <label>
            Transactions an hour
            <input
              name="hourly_tx_cap"
              required
              type="number"
              min="0"
              defaultValue={String(agent.limits.hourly_tx_cap)}
            />
          </label>
          <button type="submit" disabled={act.busy}>
            Save limits
          </button>
        </form>
      )}
      {open === 'withdraw' && (
        <form
          class="row"
          onSubmit={act.submit(
            (f) =>
              api.POST('/orchestrator/agents/{agent}/emergency-withdraw', {
                ...path,
                body: f.destination ? { destination: f.destination } : {},
              }),
            (answer) => {
              setWithdrawn(answer);
              closed();
            },
          )}
        >
          <p>
            Revokes the agent for good and moves every token it holds to the destination (your own wallet when
            empty). Type <strong>WITHDRAW</strong> to confirm.
          </p>
          <label>
            Destination (optional)
            <input name="destination" class="mono" />
          </label>
          <label>
            Confirmation
            <input name="confirmation" required pattern="WITHDRAW" autoComplete="off" />
          </label>
          <button type="submit" class="danger" disabled={act.busy}>
            Withdraw everything
          </button>
        </form>
      )}
      <Failure error={act.error} />
    </li>
  );
}

function AllowList({ group, entries, onChange }: { group: string; entries: Entry[]; onChange: () => void }) {
  const now = useNow();
  const act = useAction();
  return (
    <Section title="Allow-list">
      {entries.length === 0 ? (
        <p>Nothing allowed yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Recipient</th>
                <th scope="col">Label</th>
                <th scope="col">Budget used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.whitelist_entry_pda}>
                  <td>
                    <Short id={e.address} />
                  </td>
                  <td>
                    {e.label ?? (e.type === 0 ? 'an agent of the group' : e.type === 2 ? 'a protocol' : '')}
                  </td>
                  <td>
                    {e.approved_amount !== null ? (
                      <Gauge
                        label={`${e.label ?? e.address} budget`}
                        used={e.budget_used ?? '0'}
                        limit={e.approved_amount}
                      />
                    ) : (
                      'no budget'
                    )}
                  </td>
                  <td>{e.ttl_expires_at ? countdown(e.ttl_expires_at, now) : 'never'}</td>
                  <td>
                    {e.type !== 0 && (
                      <button
                        type="button"
                        disabled={act.busy}
                        aria-label={`Remove ${e.label ?? e.address}`}
                        onClick={() =>
                          act.call(
                            () =>
                              api.DELETE('/orchestrator/groups/{group}/whitelist/{entry}', {
                                params: { path: { group, entry: e.whitelist_entry_pda } },
                              }),
                            onChange,
                          )
                        }
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>Allow a recipient</h3>
      <form
        class="row"
        onSubmit={act.submit(
          (f) =>
            api.POST('/orchestrator/groups/{group}/whitelist', {
              params: { path: { group } },
              body: {
                address: f.address!,
                type: 1,
                ...(f.label && { label: f.label }),
                approved_amount: f.approved_amount!,
                ttl_seconds: Math.round(Number(f.ttl_hours) * 3600),
              },
            }),
          onChange,
        )}
      >
        <label>
          Address
          <input name="address" required class="mono" />
        </label>
        <label>
          Label
          <input name="label" />
        </label>
        <label>
          Budget
          <input name="approved_amount" required inputMode="decimal" />
        </label>
        <label>
          Lifetime (hours)
          <input name="ttl_hours" type="number" min="0.01" step="any" required defaultValue="24" />
        </label>
        <button type="submit" disabled={act.busy}>
          Allow
        </button>
      </form>
      <Failure error={act.error} />
    </Section>
  );
}

function Invite({ group, onChange }: { group: string; onChange: () => void }) {
  const act = useAction();
  const [code, setCode] = useState<string>();
  return (
    <Section title="Invite an agent">
      <form
        class="row"
        onSubmit={act.submit(
          (f) =>
            api.POST('/orchestrator/groups/{group}/invitations', {
              params: { path: { group } },
              body: f.label ? { label: f.label } : {},
            }),
          (answer) => {
            setCode(answer.invitation_code);
            onChange();
          },
        )}
      >
        <label>
          Label
          <input name="label" />
        </label>
        <button type="submit" disabled={act.busy}>
          Invite
        </button>
      </form>
      <p>The agent gets the group’s default limits; change them once it is listed.</p>
      {code && <ShownOnce label="The invitation code" value={code} />}
      <Failure error={act.error} />
    </Section>
  );
}

export function Group({ group }: { group: string }) {
  const path = { params: { path: { group } } };
  const view = useLoad(() => ok(api.GET('/orchestrator/groups/{group}', path)), [group]);
  const usage = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/usage', path)), [group]);
  const [refresh, setRefresh] = useState(0);
  const reload = () => {
    view.reload();
    usage.reload();
    setRefresh((n) => n + 1);
  };
  // Events come in bursts (a spend is several): read the group again once a burst is over.
  const later = useRef<ReturnType<typeof setTimeout>>();
  const onEvent = () => {
    clearTimeout(later.current);
    later.current = setTimeout(reload, 250);
  };
  useEffect(() => () => clearTimeout(later.current), []);
  const g = view.data;
  return (
    <>
      <h1>
        Group <Short id={group} />
      </h1>
      <GroupTabs group={group} current="overview" />
      <Failure error={view.error ?? usage.error} />
      {g && (
        <>
          <p>
            Defaults: {g.default_limits.per_tx_limit} a transaction, {g.default_limits.daily_limit} a day,{' '}
            {g.default_limits.hourly_tx_cap} transactions an hour.
          </p>
          <Section title="Agents">
            {g.agents.length === 0 ? (
              <p>No agent yet: invite one below.</p>
            ) : (
              <ul class="plain">
                {g.agents.map((a) => (
                  <AgentRow
                    key={a.agent_wallet_pda}
                    agent={a}
                    usage={usage.data?.agents.find((u) => u.agent_wallet_pda === a.agent_wallet_pda)}
                    onChange={reload}
                  />
                ))}
              </ul>
            )}
          </Section>
          <Invite group={group} onChange={reload} />
          <AllowList group={group} entries={g.whitelist} onChange={reload} />
          <LiveEvents group={group} onEvent={onEvent} />
          <SpendChart group={group} refresh={refresh} />
        </>
      )}
    </>
  );
}
