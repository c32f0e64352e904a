/**
 * Audit: verify the group's log (its hash chain, against the checkpoints of an earlier run kept in
 * this page) and reconcile it with the chain, each answer said in words; grant and remove auditors.
 */
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { Failure, GroupTabs, Section, fields, useAction, useLoad } from '../ui';

type Verification = Schemas['VerificationResponse'];
type Reconciliation = Schemas['ReconciliationResponse'];

function VerificationResult({ v }: { v: Verification }) {
  const intact = v.broken.length === 0;
  return (
    <div role="status" class={intact ? 'verdict good' : 'verdict bad'}>
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
              {d.kind.replace(/_/g, ' ')} (agent {d.agent_id})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Audit({ group }: { group: string }) {
  const path = { params: { path: { group } } };
  const act = useAction();
  const [verification, setVerification] = useState<Verification>();
  const [reconciliation, setReconciliation] = useState<Reconciliation>();
  const listed = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/auditors', path)), [group]);
  const [changed, setAuditors] = useState<string[]>();
  const auditors = changed ?? listed.data?.auditors;
  const verify = () => {
    // The checkpoints of the previous run in this page: the log must still give the same digests.
    const expect = verification?.checkpoints.map((c) => `${c.events}:${c.digest}`).join(',');
    act.call(
      () =>
        api.GET('/audit/groups/{group}/verification', {
          params: { path: { group }, query: expect ? { expect } : {} },
        }),
      setVerification,
    );
  };
  const auditor = (how: 'POST' | 'DELETE') => (e: Event) => {
    e.preventDefault();
    const form = (e.currentTarget as HTMLElement).closest('form')!;
    const body = { wallet: fields(form).wallet! };
    act.call(
      () =>
        how === 'POST'
          ? api.POST('/orchestrator/groups/{group}/auditors', { ...path, body })
          : api.DELETE('/orchestrator/groups/{group}/auditors', { ...path, body }),
      (a) => setAuditors(a.auditors),
    );
  };
  return (
    <>
      <h1>Audit</h1>
      <GroupTabs group={group} current="audit" />
      <Failure error={act.error ?? listed.error} />
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
            act.call(() => api.GET('/orchestrator/groups/{group}/reconciliation', path), setReconciliation)
          }
        >
          Reconcile
        </button>
        {reconciliation && <ReconciliationResult r={reconciliation} />}
      </Section>
      <Section title="Auditors">
        <p>An auditor’s wallet signs in like yours and reads this group’s log, nothing else.</p>
        <form class="row" onSubmit={auditor('POST')}>
          <label>
            Wallet
            <input name="wallet" required class="mono" />
          </label>
          <button type="submit" disabled={act.busy}>
            Grant
          </button>
          <button type="button" disabled={act.busy} onClick={auditor('DELETE')}>
            Remove
          </button>
        </form>
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
