/**
 * A group's approvals: the inbox of held spends (who, what, how much, to whom, the recipient's
 * confirmed spends of the last 7 days, the time left), approved by signing the approval's message with
 * the signed-in wallet in this page, or rejected with a reason; the decided ones below with who
 * signed. The page reads them again when an approval event comes on the group's stream. Then the
 * group's approval policy: previewed over the group's real spends (policy-preview), then applied.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, signWithWallet, type Schemas } from '../api';
import {
  Failure,
  GroupTabs,
  Section,
  Short,
  Table,
  countdown,
  fields,
  useAction,
  useLoad,
  useNow,
} from '../ui';
import { STREAM_STATES, useGroupEvents } from './live';

type Approval = Schemas['Approval'];
type Preview = Schemas['PolicyPreviewResponse'];
type Policy = Schemas['ApprovalPolicyRequest'];
type PreviewRequest = Schemas['PolicyPreviewRequest'];

const DECIDED = ['approved', 'rejected', 'expired'] as const;

/** Names a person knows an address by: an agent's label, an allow-list entry's label. */
type Names = Record<string, string>;
const Name = ({ id, names }: { id: string; names: Names }) => (
  <>
    {names[id] && `${names[id]} `}
    <Short id={id} />
  </>
);

const Wallets = ({ ids }: { ids: string[] }) => (
  <span class="wallets">
    {ids.map((id) => (
      <Short key={id} id={id} />
    ))}
  </span>
);

/** The recipient's history with the group: its confirmed spends of the last 7 days, its held spends. */
function History({ to, spent, decided }: { to: string; spent?: string; decided: Approval[] }) {
  const earlier = decided.filter((a) => a.counterparty === to);
  const count = (status: string) => earlier.filter((a) => a.status === status).length;
  return (
    <span data-testid="recipient-history">
      {spent && spent !== '0'
        ? `${spent} confirmed to it in the last 7 days`
        : 'nothing confirmed to it in the last 7 days'}
      {earlier.length > 0 &&
        `; held before: ${count('approved')} approved, ${count('rejected')} rejected, ${count('expired')} expired`}
    </span>
  );
}

function Held({
  approval: a,
  names,
  history,
  onChange,
}: {
  approval: Approval;
  names: Names;
  history: ComponentChildren;
  onChange: () => void;
}) {
  const now = useNow();
  const act = useAction();
  const path = { params: { path: { approval: a.approval_id } } };
  const who = names[a.agent_wallet_pda] ?? a.agent_wallet_pda;
  return (
    <li class="card" aria-label={`Held ${a.action} of ${a.amount} by ${who}`}>
      <h3>
        {a.action} of {a.amount}
      </h3>
      <dl class="terms">
        <dt>Agent</dt>
        <dd>
          <Name id={a.agent_wallet_pda} names={names} />
        </dd>
        <dt>To</dt>
        <dd>
          <Name id={a.counterparty} names={names} />
        </dd>
        <dt>Amount</dt>
        <dd>
          {a.amount} of <Short id={a.mint} /> (valued {a.value_in_base} in the base token)
        </dd>
        <dt>Recipient’s history</dt>
        <dd>{history}</dd>
        <dt>Requested</dt>
        <dd>{new Date(a.requested_at).toLocaleString()}</dd>
        <dt>Expires</dt>
        <dd>
          <time dateTime={a.expires_at}>{countdown(a.expires_at, now)}</time>
        </dd>
        <dt>Signed</dt>
        <dd>
          {a.approved_by.length} of {a.quorum} <Wallets ids={a.approved_by} />
        </dd>
      </dl>
      <div class="row">
        <button
          type="button"
          disabled={act.busy}
          onClick={() =>
            void act.run(async () => {
              const signature = await signWithWallet(a.message);
              return ok(
                api.POST('/orchestrator/approvals/{approval}/approve', { ...path, body: { signature } }),
              );
            }, onChange)
          }
        >
          Approve (sign)
        </button>
        <form
          class="row"
          onSubmit={act.submit(
            (f) =>
              api.POST('/orchestrator/approvals/{approval}/reject', {
                ...path,
                body: f.reason ? { reason: f.reason } : {},
              }),
            onChange,
          )}
        >
          <label>
            Reason (optional)
            <input name="reason" maxLength={200} />
          </label>
          <button type="submit" class="danger" disabled={act.busy}>
            Reject
          </button>
        </form>
      </div>
      <Failure error={act.error} />
    </li>
  );
}

/** A spend's cells of a row: its agent, what and how much, to whom. */
const SpendCells = ({
  spend: x,
  names,
}: {
  spend: Pick<Approval, 'agent_wallet_pda' | 'action' | 'amount' | 'counterparty'>;
  names: Names;
}) => (
  <>
    <td>
      <Name id={x.agent_wallet_pda} names={names} />
    </td>
    <td>
      {x.action} of {x.amount}
    </td>
    <td>
      <Name id={x.counterparty} names={names} />
    </td>
  </>
);

function Decided({ approvals, names }: { approvals: Approval[]; names: Names }) {
  if (approvals.length === 0) return <p>Nothing decided yet.</p>;
  return (
    <Table label="Decided spends" heads={['Status', 'Agent', 'Spend', 'To', 'Requested', 'Signed by']}>
      {approvals.map((a) => (
        <tr key={a.approval_id}>
          <td>
            <span class={`status ${a.status}`}>{a.status}</span>
          </td>
          <SpendCells spend={a} names={names} />
          <td>{new Date(a.requested_at).toLocaleString()}</td>
          <td>{a.approved_by.length === 0 ? 'nobody' : <Wallets ids={a.approved_by} />}</td>
        </tr>
      ))}
    </Table>
  );
}

function PreviewAnswer({ preview, names }: { preview: Preview; names: Names }) {
  const blocked = Object.entries(preview.would_block);
  return (
    <div role="status" data-testid="policy-preview">
      <p>
        From {new Date(preview.from).toLocaleString()} to {new Date(preview.to).toLocaleString()}:{' '}
        <strong>{preview.intents}</strong> spends judged again; <strong>{preview.would_hold}</strong> would be
        held for approval;{' '}
        {blocked.length === 0
          ? 'none would be blocked.'
          : `would be blocked: ${blocked.map(([code, n]) => `${n} (${code})`).join(', ')}.`}
      </p>
      {preview.examples.length > 0 && (
        <Table
          label="Spends whose outcome would change"
          caption
          heads={['When', 'Agent', 'Spend', 'To', 'Was', 'Would be']}
        >
          {preview.examples.map((x) => (
            <tr key={x.intent_id}>
              <td>{new Date(x.at).toLocaleString()}</td>
              <SpendCells spend={x} names={names} />
              <td>{x.was}</td>
              <td>{x.would}</td>
            </tr>
          ))}
        </Table>
      )}
    </div>
  );
}

/** The form's fields as the policy and the preview's request (amounts stay text). */
function proposal(f: Record<string, string>): { policy: Policy; preview: PreviewRequest } {
  const threshold = f.threshold ? f.threshold : null;
  const approvers = (f.approvers ?? '').split(/[\s,]+/).filter(Boolean);
  const policy: Policy = {
    threshold,
    ...(approvers.length > 0 && { approvers }),
    quorum: Number(f.quorum),
    ttl_seconds: Math.round(Number(f.ttl_hours) * 3600),
    new_recipients: f.new_recipients === 'on',
  };
  const preview: PreviewRequest = {
    approval_threshold: threshold,
    new_recipients: policy.new_recipients!,
    since: new Date(Date.now() - Number(f.window_days) * 86_400_000).toISOString(),
    ...(f.per_tx_limit && { per_tx_limit: f.per_tx_limit }),
    ...(f.daily_limit && { daily_limit: f.daily_limit }),
    ...(f.hourly_tx_cap && { hourly_tx_cap: Number(f.hourly_tx_cap) }),
  };
  return { policy, preview };
}

function PolicyForm({ group, names }: { group: string; names: Names }) {
  const path = { params: { path: { group } } };
  const act = useAction();
  const [previewed, setPreviewed] = useState<{ policy: Policy; answer: Preview }>();
  const [applied, setApplied] = useState<Schemas['ApprovalPolicyResponse']>();
  return (
    <Section title="Approval policy">
      <p>
        Spends (transfers, swaps, deposits; never withdrawals) valued above the threshold wait for the
        approvers; an agent’s own approval threshold overrides it. Preview the policy over the group’s real
        spends, then apply it. The service does not tell the current policy: it shows here once set.
      </p>
      <form
        class="row"
        onInput={() => setPreviewed(undefined)}
        onSubmit={(e) => {
          e.preventDefault();
          const { policy, preview } = proposal(fields(e.currentTarget as HTMLFormElement));
          act.call(
            () => api.POST('/orchestrator/groups/{group}/policy-preview', { ...path, body: preview }),
            (answer) => setPreviewed({ policy, answer }),
          );
        }}
      >
        <label>
          Threshold (empty: none)
          <input name="threshold" inputMode="decimal" />
        </label>
        <label>
          Approvers (wallets; empty: you)
          <input name="approvers" class="mono" />
        </label>
        <label>
          Quorum
          <input name="quorum" type="number" min="1" max="20" required defaultValue="1" />
        </label>
        <label>
          Wait (hours)
          <input name="ttl_hours" type="number" min="0.01" max="168" step="any" required defaultValue="24" />
        </label>
        <label class="check">
          <input name="new_recipients" type="checkbox" />
          Hold the first spend to each recipient
        </label>
        <fieldset>
          <legend>Preview only</legend>
          <label>
            Window (days)
            <input
              name="window_days"
              type="number"
              min="0.01"
              max="90"
              step="any"
              required
              defaultValue="7"
            />
          </label>
          <label>
            Per-transaction limit
            <input name="per_tx_limit" inputMode="decimal" />
          </label>
          <label>
            Daily limit
            <input name="daily_limit" inputMode="decimal" />
          </label>
          <label>
            Transactions an hour
            <input name="hourly_tx_cap" type="number" min="0" />
          </label>
        </fieldset>
        <button type="submit" disabled={act.busy}>
          Preview
        </button>
      </form>
      <Failure error={act.error} />
      {previewed && (
        <>
          <PreviewAnswer preview={previewed.answer} names={names} />
          <p class="muted">
            The preview replays the threshold, new recipients and limits; approvers, quorum and wait apply to
            the spends to come. Applying sets the approval policy only: change limits on the agents.
          </p>
          <button
            type="button"
            disabled={act.busy}
            onClick={() =>
              act.call(
                () =>
                  api.PUT('/orchestrator/groups/{group}/approval-policy', {
                    ...path,
                    body: previewed.policy,
                  }),
                (answer) => {
                  setApplied(answer);
                  setPreviewed(undefined);
                },
              )
            }
          >
            Apply this policy
          </button>
        </>
      )}
      {applied && (
        <p role="status" data-testid="policy-applied">
          Policy set:{' '}
          {applied.threshold === null ? 'no threshold' : `spends above ${applied.threshold} are held`}
          {applied.new_recipients && ', and the first spend to each recipient'}; {applied.quorum} of{' '}
          {applied.approvers.length} approver(s) decide within {applied.ttl_seconds / 3600} hours:{' '}
          <Wallets ids={applied.approvers} />.
        </p>
      )}
    </Section>
  );
}

export function Approvals({ group }: { group: string }) {
  const path = { params: { path: { group } } };
  const view = useLoad(() => ok(api.GET('/orchestrator/groups/{group}', path)), [group]);
  const list = (status: Approval['status']) =>
    ok(
      api.GET('/orchestrator/groups/{group}/approvals', { params: { path: { group }, query: { status } } }),
    ).then((answer) => answer.approvals);
  const approvals = useLoad(async () => {
    const [pending, ...decided] = await Promise.all([list('pending'), ...DECIDED.map(list)]);
    return {
      pending,
      decided: decided.flat().sort((x, y) => y.requested_at.localeCompare(x.requested_at)),
    };
  }, [group]);
  const spend = useLoad(
    () =>
      ok(
        api.GET('/orchestrator/groups/{group}/spend', {
          params: { path: { group }, query: { window: '7d' } },
        }),
      ),
    [group],
  );
  // An approval's events come with others (a hold is an intent's too): read again once they are over.
  const later = useRef<ReturnType<typeof setTimeout>>();
  const state = useGroupEvents(group, (e) => {
    if (!/^(approval|intent)\./.test(e.type)) return;
    clearTimeout(later.current);
    later.current = setTimeout(() => {
      approvals.reload();
      spend.reload();
    }, 250);
  });
  useEffect(() => () => clearTimeout(later.current), []);

  const names: Names = {};
  for (const e of view.data?.whitelist ?? []) if (e.label) names[e.address] = e.label;
  for (const a of view.data?.agents ?? []) if (a.label) names[a.agent_wallet_pda] = a.label;
  const spentTo = (to: string) => spend.data?.recipients.find((r) => r.key === to)?.total;
  const decided = approvals.data?.decided ?? [];
  return (
    <>
      <h1>Approvals</h1>
      <GroupTabs group={group} current="approvals" />
      <Failure error={view.error ?? approvals.error ?? spend.error} />
      <Section title="Waiting for approval">
        <p class="muted" role="status">
          {state === 'live' ? 'New held spends appear here as they come.' : STREAM_STATES[state]}
        </p>
        {approvals.data?.pending.length === 0 && <p>No spend waits for approval.</p>}
        <ul class="plain">
          {approvals.data?.pending.map((a) => (
            <Held
              key={a.approval_id}
              approval={a}
              names={names}
              history={<History to={a.counterparty} spent={spentTo(a.counterparty)} decided={decided} />}
              onChange={approvals.reload}
            />
          ))}
        </ul>
      </Section>
      <Section title="Decided">{approvals.data && <Decided approvals={decided} names={names} />}</Section>
      <PolicyForm group={group} names={names} />
    </>
  );
}
