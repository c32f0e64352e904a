/**
 * A group's agents as a table (search, filter by status, sort by any column; revoked ones apart
 * unless asked for), each with its Freeze button (the kill switch: at once, a reason asked, confirmed
 * once) and, once frozen, the mark of who froze it, why and when; each opened in a dialog to act on:
 * lift its freeze (a proposal, signed here), change its limits, rotate its key, revoke it, withdraw its
 * funds (a revoked agent's too). Each action that breaks something asks first and says what. Inviting an agent takes its limits and approval threshold; the code, like a rotated key, stays
 * on screen until dismissed.
 */
import { useState } from 'preact/hooks';
import { enacted } from '../signin';
import { api, ok, type Schemas } from '../api';
import { groupHref, type Route } from '../route';
import {
  Address,
  ConfirmDialog,
  DataTable,
  Dialog,
  Field,
  FormBox,
  Gauge,
  SecretDialog,
  type Secret,
  Section,
  Status,
  short,
  useForm,
  useNow,
  type Column,
} from '../ui';
import { relative } from '../words';
import { GUARD } from '../describe';
import { failedWords, FreezeAgentDialog, FrozenBadge, FrozenBy, LiftFreeze } from './freeze';
import { GroupFrame, useReloadOn, type Agent, type GroupData } from './frame';

type Withdrawn = Schemas['EmergencyWithdrawResponse'];

const LIMIT_FIELDS = {
  per_tx_limit: { label: 'Per transaction', kind: 'amount', required: true },
  daily_limit: { label: 'Daily', kind: 'amount', required: true },
  hourly_tx_cap: { label: 'Transactions an hour', kind: 'integer', required: true, min: 0 },
  approval_threshold: { label: 'Approval threshold', kind: 'amount' },
} as const;

const limitsBody = (f: Record<string, string>) => ({
  per_tx_limit: f.per_tx_limit!,
  daily_limit: f.daily_limit!,
  hourly_tx_cap: Number(f.hourly_tx_cap),
  approval_threshold: f.approval_threshold ? f.approval_threshold : null,
});

function LimitsForm({ d, agent, onDone }: { d: GroupData; agent: Agent; onDone: () => void }) {
  const form = useForm(LIMIT_FIELDS);
  const l = agent.limits;
  return (
    <FormBox
      form={form}
      label={`Limits of ${agent.label ?? 'the agent'}`}
      onSubmit={form.submit(
        (f) =>
          enacted(
            api.PATCH('/orchestrator/agents/{agent}/limits', {
              params: { path: { agent: agent.agent_wallet_pda } },
              body: limitsBody(f),
            }),
          ),
        onDone,
      )}
    >
      <Field form={form} name="per_tx_limit" defaultValue={l.per_tx_limit} hint={d.base} />
      <Field form={form} name="daily_limit" defaultValue={l.daily_limit} hint={d.base} />
      <Field form={form} name="hourly_tx_cap" defaultValue={String(l.hourly_tx_cap)} />
      <Field
        form={form}
        name="approval_threshold"
        defaultValue={l.approval_threshold ?? ''}
        hint={`${d.base}; empty: the group’s policy decides`}
      />
      <button type="submit" disabled={form.busy}>
        Save limits
      </button>
    </FormBox>
  );
}

type Asking = 'freeze' | 'rotate' | 'revoke' | 'withdraw';

function AgentDialog({
  d,
  agent,
  onClose,
  onSecret,
  onWithdrawn,
  onFrozen,
}: {
  d: GroupData;
  agent: Agent;
  onClose: () => void;
  onSecret: (s: Secret) => void;
  onWithdrawn: (w: Withdrawn) => void;
  onFrozen: (failed: number) => void;
}) {
  const [asking, setAsking] = useState<Asking>();
  const [saved, setSaved] = useState(false);
  const now = useNow(30_000);
  const id = agent.agent_wallet_pda;
  const name = agent.label ?? short(id);
  const path = { params: { path: { agent: id } } };
  const usage = d.usage.get(id);
  const balances = Object.entries(usage?.balances ?? {}).filter(([, amount]) => Number(amount) !== 0);
  const registered = agent.status !== 'invited';
  const done = () => {
    setAsking(undefined);
    d.reload();
  };
  return (
    <Dialog title={`Agent ${name}`} onClose={onClose}>
      <dl class="terms">
        <dt>Address</dt>
        <dd>
          <Address id={id} />
        </dd>
        <dt>Status</dt>
        <dd>
          <Status status={agent.status} />
          {agent.frozen && (
            <>
              {' '}
              <FrozenBadge frozen={agent.frozen} /> <FrozenBy d={d} frozen={agent.frozen} />
            </>
          )}
        </dd>
        <dt>Balances</dt>
        <dd>{balances.length > 0 ? balances.map(([t, a]) => `${a} ${t}`).join(', ') : 'nothing'}</dd>
        <dt>Last activity</dt>
        <dd>{usage?.last_activity_at ? relative(usage.last_activity_at, now) : 'none in the last day'}</dd>
        <dt>History</dt>
        <dd>
          <a href={groupHref(d.id, 'log', { agent: id })} onClick={onClose}>
            Its events in the log
          </a>
        </dd>
      </dl>
      {agent.frozen && d.admin && (
        <>
          <h3>Its freeze</h3>
          <p>
            {agent.frozen.by === GUARD &&
              'A rule of the guard froze it (its words say what the agent did; the Guard tab lists what tripped). '}
            Every spend of it is refused until the freeze is lifted: a proposal the group’s admins sign.
          </p>
          <LiftFreeze d={d} agent={agent} />
        </>
      )}
      {agent.status !== 'revoked' && (
        <>
          <h3>Limits</h3>
          <LimitsForm
            d={d}
            agent={agent}
            onDone={() => {
              setSaved(true);
              d.reload();
            }}
          />
          {saved && <p role="status">Limits saved.</p>}
        </>
      )}
      <h3>Actions</h3>
      <div class="actions">
        {d.admin && !agent.frozen && agent.status !== 'revoked' && (
          <button type="button" class="danger" onClick={() => setAsking('freeze')}>
            Freeze
          </button>
        )}
        {agent.status === 'active' && (
          <button type="button" onClick={() => setAsking('rotate')}>
            Rotate key
          </button>
        )}
        {agent.status !== 'revoked' && (
          <button type="button" class="danger" onClick={() => setAsking('revoke')}>
            Revoke
          </button>
        )}
        {registered && (
          <button type="button" class="danger" onClick={() => setAsking('withdraw')}>
            {agent.status === 'revoked' ? 'Withdraw its funds' : 'Emergency withdrawal'}
          </button>
        )}
      </div>
      {asking === 'freeze' && (
        <FreezeAgentDialog
          agent={agent}
          onClose={() => setAsking(undefined)}
          onFrozen={(failed) => {
            onFrozen(failed);
            done();
          }}
        />
      )}
      {asking === 'rotate' && (
        <ConfirmDialog
          title={`Rotate the key of ${name}?`}
          breaks={
            <p>
              The running agent stops now: its current key is refused from this moment, and it spends nothing
              until it is given the new key, which is shown once.
            </p>
          }
          confirm="Rotate key"
          onClose={() => setAsking(undefined)}
          onConfirm={async () => {
            const answer = (await ok(
              enacted(api.POST('/orchestrator/agents/{agent}/rotate-key', path)),
            )) as unknown as Schemas['RotateKeyResponse'];
            onSecret({
              title: `The new API key of ${name}`,
              value: answer.api_key,
              about: 'Give it to the agent: its old key is refused from now on.',
            });
            done();
          }}
        />
      )}
      {asking === 'revoke' && (
        <ConfirmDialog
          title={`Revoke ${name}?`}
          breaks={
            <p>
              {agent.status === 'invited'
                ? 'Its invitation code is refused from now on, for good.'
                : 'Its key is refused from now on, for good, and its held spends are rejected. Its funds stay in its wallet: withdraw them here afterwards.'}
            </p>
          }
          confirm="Revoke"
          onClose={() => setAsking(undefined)}
          onConfirm={async () => {
            await ok(api.POST('/orchestrator/agents/{agent}/revoke', path));
            done();
          }}
        />
      )}
      {asking === 'withdraw' && (
        <ConfirmDialog
          title={`Withdraw everything ${name} holds?`}
          breaks={
            <p>
              {agent.status === 'revoked'
                ? 'Every token it still holds moves to the destination.'
                : 'It is revoked for good (its key refused, its held spends rejected, its spends not yet sent failed), and every token it holds moves to the destination.'}{' '}
              Holding now:{' '}
              {balances.length > 0 ? balances.map(([t, a]) => `${a} ${t}`).join(', ') : 'nothing'}.
            </p>
          }
          confirm="Withdraw everything"
          typed="WITHDRAW"
          onClose={() => setAsking(undefined)}
          onConfirm={async (f) => {
            const answer = await ok(
              enacted(
                api.POST('/orchestrator/agents/{agent}/emergency-withdraw', {
                  ...path,
                  body: f.destination ? { destination: f.destination } : {},
                }),
              ),
            );
            onWithdrawn(answer);
            done();
          }}
        >
          <div class="field">
            <label for="withdraw-destination">
              Destination{' '}
              <span class="optional">
                (optional: the group’s safe destination when empty; another is a proposal the admins sign)
              </span>
            </label>
            <input id="withdraw-destination" name="destination" class="mono" autoComplete="off" />
          </div>
        </ConfirmDialog>
      )}
    </Dialog>
  );
}

const INVITE_FIELDS = {
  label: { label: 'Label' },
  per_tx_limit: { label: 'Per transaction', kind: 'amount' },
  daily_limit: { label: 'Daily', kind: 'amount' },
  hourly_tx_cap: { label: 'Transactions an hour', kind: 'integer', min: 0 },
  approval_threshold: { label: 'Approval threshold', kind: 'amount' },
} as const;

function Invite({ d, onSecret }: { d: GroupData; onSecret: (s: Secret) => void }) {
  const form = useForm(INVITE_FIELDS);
  const l = d.view.default_limits;
  return (
    <Section title="Invite an agent">
      <p class="muted">Empty limits take the group’s defaults.</p>
      <FormBox
        form={form}
        label="Invite an agent"
        onSubmit={form.submit(
          (f) =>
            enacted(
              api.POST('/orchestrator/groups/{group}/invitations', {
                params: { path: { group: d.id } },
                body: {
                  ...(f.label && { label: f.label }),
                  ...(f.per_tx_limit && { per_tx_limit: f.per_tx_limit }),
                  ...(f.daily_limit && { daily_limit: f.daily_limit }),
                  ...(f.hourly_tx_cap && { hourly_tx_cap: Number(f.hourly_tx_cap) }),
                  ...(f.approval_threshold && { approval_threshold: f.approval_threshold }),
                },
              }),
            ) as unknown as Promise<{ data?: Schemas['InvitationResponse']; response: Response }>,
          (answer) => {
            onSecret({
              title: 'The invitation code',
              value: answer.invitation_code,
              about: `The agent registers with it (POST /api/v1/register) before ${new Date(answer.expires_at).toLocaleString()}, and gets its API key then.`,
            });
            d.reload();
          },
        )}
      >
        <Field form={form} name="label" />
        <Field form={form} name="per_tx_limit" placeholder={l.per_tx_limit} hint={d.base} />
        <Field form={form} name="daily_limit" placeholder={l.daily_limit} hint={d.base} />
        <Field form={form} name="hourly_tx_cap" placeholder={String(l.hourly_tx_cap)} />
        <Field form={form} name="approval_threshold" hint={`${d.base}; empty: the group’s policy`} />
        <button type="submit" disabled={form.busy}>
          Invite
        </button>
      </FormBox>
    </Section>
  );
}

const useShare = (d: GroupData, a: Agent) => {
  const used = Number(d.usage.get(a.agent_wallet_pda)?.spent_today ?? 0);
  const limit = Number(a.limits.daily_limit);
  return limit > 0 ? used / limit : used > 0 ? Infinity : 0;
};

function Agents({ d, route }: { d: GroupData; route: Route }) {
  const [open, setOpen] = useState<string>();
  const [secret, setSecret] = useState<Secret>();
  const [withdrawn, setWithdrawn] = useState<Withdrawn>();
  const [freezing, setFreezing] = useState<Agent>();
  const [frozen, setFrozen] = useState<{ name: string; failed: number }>();
  const now = useNow(30_000);
  useReloadOn(d.id, /^(agent|intent|payment)\.|^group\.(un)?frozen$/, d.reload);
  const agents = d.view.agents;
  const q = route.query;
  const columns: Column<Agent>[] = [
    {
      key: 'agent',
      head: 'Agent',
      cell: (a) => <Address id={a.agent_wallet_pda} names={d.names} />,
      sort: (a) => (a.label ?? a.agent_wallet_pda).toLowerCase(),
    },
    {
      key: 'status',
      head: 'Status',
      cell: (a) =>
        a.frozen ? (
          <>
            <Status status={a.status} /> <FrozenBadge frozen={a.frozen} />
            <br />
            <FrozenBy d={d} frozen={a.frozen} />
          </>
        ) : (
          <Status status={a.status} />
        ),
      sort: (a) => `${a.frozen ? 0 : 1}${a.status}`,
    },
    {
      key: 'use',
      head: 'Last 24 hours',
      cell: (a) => (
        <Gauge
          label={`${a.label ?? a.agent_wallet_pda} daily`}
          used={d.usage.get(a.agent_wallet_pda)?.spent_today ?? '0'}
          limit={a.limits.daily_limit}
          unit={d.base}
        />
      ),
      sort: (a) => useShare(d, a),
    },
    {
      key: 'hour',
      head: 'Last hour',
      cell: (a) => (
        <Gauge
          label={`${a.label ?? a.agent_wallet_pda} hourly`}
          used={String(d.usage.get(a.agent_wallet_pda)?.hourly_count ?? 0)}
          limit={String(a.limits.hourly_tx_cap)}
          unit="tx"
        />
      ),
      sort: (a) => (d.usage.get(a.agent_wallet_pda)?.hourly_count ?? 0) / (a.limits.hourly_tx_cap || 1),
    },
    {
      key: 'per_tx',
      head: 'Per transaction',
      cell: (a) => `${a.limits.per_tx_limit} ${d.base}`,
      sort: (a) => Number(a.limits.per_tx_limit),
    },
    {
      key: 'balance',
      head: 'Balances',
      cell: (a) =>
        Object.entries(d.usage.get(a.agent_wallet_pda)?.balances ?? {})
          .filter(([, amount]) => Number(amount) !== 0)
          .map(([t, amount]) => `${amount} ${t}`)
          .join(', ') || 'nothing',
    },
    {
      key: 'activity',
      head: 'Last activity',
      cell: (a) => {
        const at = d.usage.get(a.agent_wallet_pda)?.last_activity_at;
        return at ? <time dateTime={at}>{relative(at, now)}</time> : '—';
      },
      sort: (a) => d.usage.get(a.agent_wallet_pda)?.last_activity_at ?? '',
    },
    {
      key: 'manage',
      head: 'Actions',
      hiddenHead: true,
      cell: (a) => (
        <span class="nowrap">
          {d.admin && !a.frozen && a.status !== 'revoked' && (
            <>
              <button type="button" class="danger small" onClick={() => setFreezing(a)}>
                Freeze <span class="visually-hidden">{a.label ?? a.agent_wallet_pda}</span>
              </button>{' '}
            </>
          )}
          <button type="button" class="secondary small" onClick={() => setOpen(a.agent_wallet_pda)}>
            Manage <span class="visually-hidden">{a.label ?? a.agent_wallet_pda}</span>
          </button>
        </span>
      ),
    },
  ];
  const opened = agents.find((a) => a.agent_wallet_pda === open);
  return (
    <>
      <Section title="Agents">
        {frozen && (
          <p role="status" class="notice">
            {frozen.name} is frozen: every spend of it is refused from now on. {failedWords(frozen.failed)}
          </p>
        )}
        {withdrawn && (
          <p role="status" class="notice">
            Withdrawn from {d.names[withdrawn.agent_wallet_pda] ?? short(withdrawn.agent_wallet_pda)} to{' '}
            <Address id={withdrawn.destination} names={d.names} />:{' '}
            {withdrawn.moved.length === 0
              ? 'it held nothing'
              : withdrawn.moved.map((m) => `${m.amount} ${m.token}`).join(', ')}
            {withdrawn.failed_intents > 0 && `; ${withdrawn.failed_intents} spend(s) not yet sent failed`}.
          </p>
        )}
        <DataTable
          key={q.toString()}
          label="Agents"
          testId="agents"
          rows={agents}
          columns={columns}
          rowKey={(a) => a.agent_wallet_pda}
          search={(a) => `${a.label ?? ''} ${a.agent_wallet_pda}`}
          empty="No agent yet: invite one below."
          initial={{
            q: q.get('q') ?? '',
            ...(q.get('sort') && { sort: q.get('sort')! }),
            ...(q.get('dir') === 'desc' && { dir: 'desc' as const }),
            filters: { status: q.get('status') ?? 'current' },
          }}
          filters={[
            {
              name: 'status',
              label: 'Status',
              options: [
                { value: 'current', label: 'active and invited', test: (a) => a.status !== 'revoked' },
                { value: 'active', label: 'active', test: (a) => a.status === 'active' },
                { value: 'invited', label: 'invited', test: (a) => a.status === 'invited' },
                { value: 'revoked', label: 'revoked', test: (a) => a.status === 'revoked' },
                { value: 'frozen', label: 'frozen', test: (a) => a.frozen !== null },
                { value: 'guard', label: 'frozen by the guard', test: (a) => a.frozen?.by === GUARD },
              ],
            },
          ]}
        />
      </Section>
      <Invite d={d} onSecret={setSecret} />
      {opened && (
        <AgentDialog
          d={d}
          agent={opened}
          onClose={() => setOpen(undefined)}
          onSecret={setSecret}
          onWithdrawn={setWithdrawn}
          onFrozen={(failed) => setFrozen({ name: opened.label ?? short(opened.agent_wallet_pda), failed })}
        />
      )}
      {freezing && (
        <FreezeAgentDialog
          agent={freezing}
          onClose={() => setFreezing(undefined)}
          onFrozen={(failed) => {
            setFrozen({ name: freezing.label ?? short(freezing.agent_wallet_pda), failed });
            d.reload();
          }}
        />
      )}
      {secret && <SecretDialog secret={secret} onDone={() => setSecret(undefined)} />}
    </>
  );
}

export const AgentsPage = ({ group, route }: { group: string; route: Route }) => (
  <GroupFrame group={group} page="agents">
    {(d) => <Agents d={d} route={route} />}
  </GroupFrame>
);
