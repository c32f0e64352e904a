/**
 * Audit: verify the group's log (its hash chain, against the checkpoints of an earlier run kept in
 * this page, and each governed change against the governance then in force) and reconcile it with the
 * chain, each answer said in words; grant and remove auditors.
 */
import { useState } from 'preact/hooks';
import { enacted } from '../signin';
import { api, ok, type Schemas } from '../api';
import { Failure, Field, FormBox, Loading, Section, useAction, useForm, useLoad } from '../ui';
import { GroupFrame, type GroupData } from './frame';

type Verification = Schemas['VerificationResponse'];
type Reconciliation = Schemas['ReconciliationResponse'];

/** A governance finding of the verification, in words. */
const FINDINGS: Record<Verification['governance']['invalid'][number]['reason'], string> = {
  unknown_proposal: 'it names a proposal the log does not hold',
  message_differs: 'its signatures are of another message than the change made',
  no_quorum: 'it lacks the quorum of admin signatures the governance then in force asked',
  not_executed: 'it was made although its proposal was never executed',
  no_proposal: 'a widening change made without a proposal',
};

/** The governance part of a verification: each widening change had its quorum, or what did not. */
function GovernanceResult({ g }: { g: Verification['governance'] }) {
  const changes = `${g.checked} governed ${g.checked === 1 ? 'change' : 'changes'} checked`;
  if (g.invalid.length === 0)
    return (
      <p data-testid="governance-verified">
        <strong>
          {g.checked === 0 ? 'No governed change to check yet.' : `${changes}: each had its quorum.`}
        </strong>
      </p>
    );
  return (
    <>
      <p data-testid="governance-verified">
        <strong>
          {changes}: {g.invalid.length} without the quorum the governance asked.
        </strong>
      </p>
      <ul>
        {g.invalid.map((x) => (
          <li key={x.event_id}>
            {x.type}
            {x.proposal_id ? ` (proposal ${x.proposal_id})` : ''}: {FINDINGS[x.reason] ?? x.reason}.{' '}
            {x.message}
          </li>
        ))}
      </ul>
    </>
  );
}

function VerificationResult({ v }: { v: Verification }) {
  const intact = v.broken.length === 0;
  const governed = v.governance.invalid.length === 0;
  return (
    <div role="status" class={intact && governed ? 'verdict good' : 'verdict bad'}>
      <p>
        <strong>
          {intact ? 'The log is intact.' : `The log does not hold: ${v.broken.length} problem(s).`}
        </strong>{' '}
        {v.events} events in {v.streams} streams; {v.hashed} checked against the hash chain
        {v.unhashed > 0 ? `, ${v.unhashed} older than the chain (not verifiable)` : ''}.
      </p>
      {!intact && (
        <ul>
          {v.broken.map((b, i) => (
            <li key={i}>
              {b.reason.replace(/_/g, ' ')}: {b.message}
            </li>
          ))}
        </ul>
      )}
      <GovernanceResult g={v.governance} />
      <p>
        Digest <code class="mono">{v.digest}</code>; {v.checkpoints.length} checkpoint(s) kept for the next
        run.
      </p>
    </div>
  );
}

function ReconciliationResult({ r }: { r: Reconciliation }) {
  const clean = r.discrepancies.length === 0;
  return (
    <div role="status" class={clean ? 'verdict good' : 'verdict bad'}>
      <p>
        <strong>
          {clean
            ? 'The log and the chain agree.'
            : `${r.discrepancies.length} discrepancy(ies) between the log and the chain.`}
        </strong>{' '}
        {r.agents} agent(s), {r.transactions} transaction(s) compared.
      </p>
      {!clean && (
        <ul>
          {r.discrepancies.map((d, i) => (
            <li key={i}>
              {d.kind.replace(/_/g, ' ')} (agent {d.agent_id}): {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const AUDITOR_FIELDS = { wallet: { label: 'Wallet', kind: 'address', required: true } } as const;

function Audit({ d }: { d: GroupData }) {
  const group = d.id;
  const path = { params: { path: { group } } };
  const act = useAction();
  const form = useForm(AUDITOR_FIELDS);
  const [verification, setVerification] = useState<Verification>();
  const [reconciliation, setReconciliation] = useState<Reconciliation>();
  const listed = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/auditors', path)), [group]);
  const [changed, setAuditors] = useState<string[]>();
  const auditors = changed ?? listed.data?.auditors;
  const verify = () => {
    // The checkpoints of the previous run in this page: the log must still give the same digests.
    const expect = verification?.checkpoints.map((c) => `${c.events}:${c.digest}`).join(',');
    void act.call(
      () =>
        api.GET('/audit/groups/{group}/verification', {
          params: { path: { group }, query: expect ? { expect } : {} },
        }),
      setVerification,
    );
  };
  return (
    <>
      <Failure error={act.error} />
      <Section title="Verify the log">
        <p>Checks every event’s link in the hash chain, and the digests of the previous run in this page.</p>
        <button type="button" disabled={act.busy} onClick={verify}>
          Verify the log
        </button>
        {verification && <VerificationResult v={verification} />}
      </Section>
      <Section title="Reconcile with the chain">
        <button
          type="button"
          disabled={act.busy}
          onClick={() =>
            void act.call(
              () => api.GET('/orchestrator/groups/{group}/reconciliation', path),
              setReconciliation,
            )
          }
        >
          Reconcile
        </button>
        {reconciliation && <ReconciliationResult r={reconciliation} />}
      </Section>
      <Section title="Auditors">
        <p>An auditor’s wallet signs in like yours and reads this group’s log, nothing else.</p>
        <FormBox
          form={form}
          label="Grant or remove an auditor"
          onSubmit={(e) => {
            // Grant submits the form; Remove sends the same field with DELETE.
            const method =
              (e as SubmitEvent).submitter?.getAttribute('value') === 'remove' ? 'DELETE' : 'POST';
            void form.submit(
              (f) =>
                method === 'POST'
                  ? enacted(
                      api.POST('/orchestrator/groups/{group}/auditors', {
                        ...path,
                        body: { wallet: f.wallet! },
                      }),
                    )
                  : api.DELETE('/orchestrator/groups/{group}/auditors', {
                      ...path,
                      body: { wallet: f.wallet! },
                    }),
              (a) => setAuditors(a.auditors),
            )(e);
          }}
        >
          <Field form={form} name="wallet" />
          <button type="submit" name="action" value="grant" disabled={form.busy}>
            Grant
          </button>
          <button type="submit" name="action" value="remove" class="secondary" disabled={form.busy}>
            Remove
          </button>
        </FormBox>
        {listed.loading && <Loading what="the auditors" />}
        <Failure error={listed.error} />
        {auditors && (
          <p>
            Auditors now:{' '}
            {auditors.length === 0
              ? 'none'
              : auditors.map((a) => (
                  <code class="mono" key={a}>
                    {a}{' '}
                  </code>
                ))}
          </p>
        )}
      </Section>
    </>
  );
}

export const AuditPage = ({ group }: { group: string }) => (
  <GroupFrame group={group} page="audit">
    {(d) => <Audit d={d} />}
  </GroupFrame>
);
