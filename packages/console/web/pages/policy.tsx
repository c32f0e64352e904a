/**
 * What a group's policies are: its default limits for new agents, and its approval policy as it is in
 * force (read back from the service, and where a change starts), previewed over the group's real
 * spends (policy-preview) before it is applied. The governance policy is on the Members page, the
 * guard (the group's own limits and its rules) on its own (guard.tsx).
 */
import { useRef, useState } from 'preact/hooks';
import { enacted } from '../signin';
import { api, ok, type Schemas } from '../api';
import { Address, Field, FormBox, Section, Table, failureText, useForm, useLoad, type Names } from '../ui';
import { GroupFrame, type GroupData } from './frame';

type Preview = Schemas['PolicyPreviewResponse'];
type Policy = Schemas['ApprovalPolicyRequest'];
type PreviewRequest = Schemas['PolicyPreviewRequest'];

function PreviewAnswer({ preview, names, d }: { preview: Preview; names: Names; d: GroupData }) {
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
              <td>
                <Address id={x.agent_wallet_pda} names={names} />
              </td>
              <td>
                {x.action} of {x.amount} {d.base}
              </td>
              <td>
                <Address id={x.counterparty} names={names} />
              </td>
              <td>{x.was}</td>
              <td>{x.would}</td>
            </tr>
          ))}
        </Table>
      )}
    </div>
  );
}

const POLICY_FIELDS = {
  threshold: { label: 'Threshold', kind: 'amount', api: 'approval_threshold' },
  approvers: { label: 'Approvers', kind: 'wallets' },
  quorum: { label: 'Quorum', kind: 'integer', required: true, min: 1, max: 20 },
  ttl_hours: {
    label: 'Wait (hours)',
    kind: 'number',
    required: true,
    positive: true,
    max: 168,
    api: 'ttl_seconds',
  },
  window_days: {
    label: 'Window (days)',
    kind: 'number',
    required: true,
    positive: true,
    max: 90,
    api: 'since',
  },
  per_tx_limit: { label: 'Per-transaction limit', kind: 'amount' },
  daily_limit: { label: 'Daily limit', kind: 'amount' },
  hourly_tx_cap: { label: 'Transactions an hour', kind: 'integer', min: 0 },
} as const;

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

type InForce = Schemas['ApprovalPolicyResponse'];

/** A policy in words: what it holds, and who decides within how long. */
function PolicyText({ p, d }: { p: InForce; d: GroupData }) {
  return (
    <>
      {p.threshold === null ? 'no threshold' : `spends above ${p.threshold} ${d.base} are held`}
      {p.new_recipients && ', and the first spend to each recipient'}; {p.quorum} of {p.approvers.length}{' '}
      approver(s) decide within {p.ttl_seconds / 3600} hours:{' '}
      {p.approvers.map((w) => (
        <Address key={w} id={w} names={d.names} />
      ))}
      .
    </>
  );
}

function ApprovalPolicy({ d }: { d: GroupData }) {
  const path = { params: { path: { group: d.id } } };
  const form = useForm(POLICY_FIELDS);
  const inForce = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/approval-policy', path)), [d.id]);
  const [previewed, setPreviewed] = useState<{ policy: Policy; answer: Preview }>();
  const [applied, setApplied] = useState<InForce>();
  const [applying, setApplying] = useState(false);
  const proposed = useRef<Policy>();
  const now = inForce.data;
  return (
    <Section title="Approval policy">
      <p>
        Spends (transfers, swaps, deposits; never withdrawals) valued above the threshold wait for the
        approvers; an agent’s own approval threshold overrides it. The form starts from the policy in force:
        preview a change over the group’s real spends, then apply it.
      </p>
      <p data-testid="policy-in-force">
        <strong>In force:</strong>{' '}
        {now ? (
          now.threshold === null && !now.new_recipients ? (
            'nothing is held but what an agent’s own approval threshold holds (no threshold is set).'
          ) : (
            <PolicyText p={now} d={d} />
          )
        ) : inForce.error ? (
          failureText(inForce.error)
        ) : (
          'loading…'
        )}
      </p>
      {inForce.loading ? null : (
        <FormBox
          // Filled from the policy in force (shown once it is read, so nothing typed is lost): a new one,
          // applied or read again, fills it afresh.
          key={now ? JSON.stringify(now) : 'unread'}
          form={form}
          label="Approval policy"
          onChange={() => setPreviewed(undefined)}
          onSubmit={(e) => {
            setPreviewed(undefined);
            void form.submit(
              (f) => {
                const { policy, preview } = proposal(f);
                proposed.current = policy;
                return api.POST('/orchestrator/groups/{group}/policy-preview', { ...path, body: preview });
              },
              (answer) => setPreviewed({ policy: proposed.current!, answer }),
              { reset: false },
            )(e);
          }}
        >
          <Field
            form={form}
            name="threshold"
            hint={`${d.base}; empty: none`}
            defaultValue={now?.threshold ?? ''}
          />
          <Field
            form={form}
            name="approvers"
            hint="wallets, separated by spaces or commas; empty: you"
            defaultValue={now?.approvers.join(' ') ?? ''}
          />
          <Field form={form} name="quorum" defaultValue={String(now?.quorum ?? 1)} />
          <Field form={form} name="ttl_hours" defaultValue={String((now?.ttl_seconds ?? 86_400) / 3600)} />
          <div class="field check">
            <label>
              <input name="new_recipients" type="checkbox" defaultChecked={now?.new_recipients ?? false} />{' '}
              Hold the first spend to each recipient
            </label>
          </div>
          <fieldset>
            <legend>Preview only</legend>
            <Field form={form} name="window_days" defaultValue="7" />
            <Field form={form} name="per_tx_limit" hint={d.base} />
            <Field form={form} name="daily_limit" hint={d.base} />
            <Field form={form} name="hourly_tx_cap" />
          </fieldset>
          <button type="submit" disabled={form.busy}>
            Preview
          </button>
        </FormBox>
      )}
      {previewed && (
        <>
          <PreviewAnswer preview={previewed.answer} names={d.names} d={d} />
          <p class="muted">
            The preview replays the threshold, new recipients and limits; approvers, quorum and wait apply to
            the spends to come. Applying sets the approval policy only: change limits on the agents.
          </p>
          <button
            type="button"
            disabled={applying}
            onClick={async () => {
              setApplying(true);
              try {
                setApplied(
                  await ok(
                    enacted(
                      api.PUT('/orchestrator/groups/{group}/approval-policy', {
                        ...path,
                        body: previewed.policy,
                      }),
                    ),
                  ),
                );
                setPreviewed(undefined);
                inForce.reload();
              } catch (err) {
                form.refused(err);
              } finally {
                setApplying(false);
              }
            }}
          >
            Apply this policy
          </button>
        </>
      )}
      {applied && (
        <p role="status" data-testid="policy-applied">
          Policy set: <PolicyText p={applied} d={d} />
        </p>
      )}
    </Section>
  );
}

function Defaults({ d }: { d: GroupData }) {
  const l = d.view.default_limits;
  return (
    <Section title="Defaults for new agents">
      <dl class="terms">
        <dt>Per transaction</dt>
        <dd>
          {l.per_tx_limit} {d.base}
        </dd>
        <dt>A day</dt>
        <dd>
          {l.daily_limit} {d.base}
        </dd>
        <dt>An hour</dt>
        <dd>{l.hourly_tx_cap} transactions</dd>
        <dt>Approval threshold</dt>
        <dd>{l.approval_threshold ? `${l.approval_threshold} ${d.base}` : 'the group’s policy'}</dd>
      </dl>
    </Section>
  );
}

export const PolicyPage = ({ group }: { group: string }) => (
  <GroupFrame group={group} page="policy">
    {(d) => (
      <>
        <Defaults d={d} />
        <ApprovalPolicy d={d} />
      </>
    )}
  </GroupFrame>
);
