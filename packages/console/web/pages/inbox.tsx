/**
 * What waits for a person's decision: the held spends (who, what, how much with its token, to whom,
 * its memo, why it was held, the recipient's history, the time left), approved by signing the
 * approval's message with the signed-in wallet in this page, or rejected with a reason; below, the
 * decided ones, each with who decided and why (a person, or the agent's revocation or emergency
 * withdrawal, or nobody in time), read from the log. The inbox is a list of inboxes: governance's
 * proposals (proposals.tsx) are the second, beside the held spends.
 */
import type { ComponentChildren } from 'preact';
import { api, ok, type Schemas } from '../api';
import { decidedBy, ruleName } from '../describe';
import { KeypairAgain, signWithWallet } from '../signin';
import { groupHref } from '../route';
import {
  Address,
  Failure,
  Field,
  FormBox,
  Loading,
  Section,
  Status,
  Table,
  useAction,
  useForm,
  useLoad,
  useNow,
  type Names,
} from '../ui';
import { countdown } from '../words';
import { wholeLog } from './attention';
import { GroupFrame, useReloadOn, wordingOf, type GroupData } from './frame';
import { STREAM_STATES } from './live';
import { Proposals } from './proposals';

type Approval = Schemas['Approval'];
type Data = Record<string, unknown>;

const DECIDED = ['approved', 'rejected', 'expired'] as const;

/** What the log says of each approval: why it was held, its intent, and its decision. */
interface Told {
  requested?: Data;
  decided?: Data;
  memo?: string;
}

/** What the log told of each group's approvals so far, and where to read on from. */
const toldSoFar = new Map<string, { told: Map<string, Told>; cursor?: string }>();

async function toldByLog(group: string, pending: Approval[]): Promise<Map<string, Told>> {
  const known = toldSoFar.get(group) ?? { told: new Map<string, Told>() };
  // One streamed read of the approvals' events, then only what is new at each reload.
  const events = await wholeLog(group, {
    type: 'approval.requested,approval.decided',
    ...(known.cursor && { cursor: known.cursor }),
  });
  for (const e of events) {
    const d = e.data as Data;
    const id = String(d.approval_id);
    const t = known.told.get(id) ?? {};
    if (e.type === 'approval.requested') t.requested = d;
    else t.decided = d;
    known.told.set(id, t);
  }
  toldSoFar.set(group, { ...known, ...(events.length > 0 && { cursor: events.at(-1)!.position }) });
  const told = known.told;
  // A held spend's memo is its intent's: its story has it (read once).
  await Promise.all(
    pending.map(async (a) => {
      const t = told.get(a.approval_id);
      const intent = t?.requested?.intent_id;
      if (!t || typeof intent !== 'string' || t.memo !== undefined) return;
      const story = await ok(api.GET('/audit/intents/{intent}', { params: { path: { intent } } }));
      const accepted = story.events.find((e) => e.type === 'intent.accepted')?.data as Data | undefined;
      t.memo = typeof accepted?.memo === 'string' ? accepted.memo : '';
    }),
  );
  return told;
}

/** The recipient's history with the group: its confirmed spends of the last 7 days, its held spends. */
function History({
  to,
  spent,
  decided,
  base,
}: {
  to: string;
  spent?: string;
  decided: Approval[];
  base: string;
}) {
  const earlier = decided.filter((a) => a.counterparty === to);
  const count = (status: string) => earlier.filter((a) => a.status === status).length;
  return (
    <span data-testid="recipient-history">
      {spent && spent !== '0'
        ? `${spent} ${base} confirmed to it in the last 7 days`
        : 'nothing confirmed to it in the last 7 days'}
      {earlier.length > 0 &&
        `; held before: ${count('approved')} approved, ${count('rejected')} rejected, ${count('expired')} expired`}
    </span>
  );
}

const Wallets = ({ ids, names }: { ids: string[]; names: Names }) => (
  <span class="wallets">
    {ids.map((id) => (
      <Address key={id} id={id} names={names} />
    ))}
  </span>
);

const REJECT_FIELDS = { reason: { label: 'Reason', max: 200 } } as const;

function Held({
  approval: a,
  d,
  told,
  history,
  onChange,
}: {
  approval: Approval;
  d: GroupData;
  told?: Told;
  history: ComponentChildren;
  onChange: () => void;
}) {
  const now = useNow();
  const act = useAction();
  const reject = useForm(REJECT_FIELDS);
  const path = { params: { path: { approval: a.approval_id } } };
  const who = d.names[a.agent_wallet_pda] ?? a.agent_wallet_pda;
  const amount = `${a.amount} ${d.symbol(a.mint)}`;
  const why = a.hold_reason ?? told?.requested?.reason;
  return (
    <li class="card" aria-label={`Held ${a.action} of ${amount} by ${who}`}>
      <h3>
        {a.action} of {amount}
      </h3>
      <dl class="terms">
        <dt>Agent</dt>
        <dd>
          <Address id={a.agent_wallet_pda} names={d.names} />
        </dd>
        <dt>To</dt>
        <dd>
          <Address id={a.counterparty} names={d.names} />
        </dd>
        <dt>Amount</dt>
        <dd>
          {amount} (valued {a.value_in_base} {d.base})
        </dd>
        <dt>Memo</dt>
        <dd data-testid="memo">{told?.memo || <span class="muted">none</span>}</dd>
        <dt>Held because</dt>
        <dd data-testid="held-because">
          {why === 'new_recipient'
            ? 'it is the first spend to this recipient'
            : why === 'threshold'
              ? 'its value is above the approval threshold'
              : why === 'guard'
                ? 'a rule of the guard held it'
                : '…'}
          {a.guard.length > 0 && (
            <ul class="plain" data-testid="held-by-guard">
              {a.guard.map((t) => (
                <li key={t.rule}>
                  {why === 'guard' ? '' : 'and '}the guard’s <strong>{ruleName(t.rule)}</strong> rule:{' '}
                  {t.words}
                </li>
              ))}
            </ul>
          )}
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
          {a.approved_by.length} of {a.quorum} <Wallets ids={a.approved_by} names={d.names} />
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
        <FormBox
          form={reject}
          label={`Reject the ${a.action} of ${amount}`}
          onSubmit={reject.submit(
            (f) =>
              api.POST('/orchestrator/approvals/{approval}/reject', {
                ...path,
                body: f.reason ? { reason: f.reason } : {},
              }),
            onChange,
          )}
        >
          <Field form={reject} name="reason" maxLength={200} />
          <button type="submit" class="danger" disabled={reject.busy}>
            Reject
          </button>
        </FormBox>
      </div>
      <Failure error={act.error} />
      <KeypairAgain />
    </li>
  );
}

/** Who decided, in words: the approvers who signed, the person who rejected (and why), or what did. */
function decision(a: Approval, told: Told | undefined, d: GroupData): string {
  if (told?.decided) return decidedBy(told.decided, wordingOf(d)).replace(/^[: ]+/, '');
  if (a.status === 'approved') return `by ${a.approved_by.map((w) => d.names[w] ?? w).join(', ')}`;
  if (a.status === 'expired') return 'nobody decided in time';
  return '…';
}

function Decided({ approvals, d, told }: { approvals: Approval[]; d: GroupData; told: Map<string, Told> }) {
  if (approvals.length === 0) return <p>Nothing decided yet.</p>;
  return (
    <Table label="Decided spends" heads={['Status', 'Agent', 'Spend', 'To', 'Requested', 'Decided']}>
      {approvals.map((a) => (
        <tr key={a.approval_id}>
          <td>
            <Status status={a.status} />
          </td>
          <td>
            <Address id={a.agent_wallet_pda} names={d.names} />
          </td>
          <td>
            {a.action} of {a.amount} {d.symbol(a.mint)}
          </td>
          <td>
            <Address id={a.counterparty} names={d.names} />
          </td>
          <td>{new Date(a.requested_at).toLocaleString()}</td>
          <td data-testid="decided-by">{decision(a, told.get(a.approval_id), d)}</td>
        </tr>
      ))}
    </Table>
  );
}

function HeldSpends({ d }: { d: GroupData }) {
  const group = d.id;
  const list = (status: Approval['status']) =>
    ok(
      api.GET('/orchestrator/groups/{group}/approvals', { params: { path: { group }, query: { status } } }),
    ).then((answer) => answer.approvals);
  const approvals = useLoad(async () => {
    const [pending, ...decided] = await Promise.all([list('pending'), ...DECIDED.map(list)]);
    const told = await toldByLog(group, pending);
    return {
      pending,
      decided: decided.flat().sort((x, y) => y.requested_at.localeCompare(x.requested_at)),
      told,
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
  const state = useReloadOn(group, /^(approval|intent)\./, () => {
    approvals.reload();
    spend.reload();
  });
  const spentTo = (to: string) => spend.data?.recipients.find((r) => r.key === to)?.total;
  const data = approvals.data;
  return (
    <>
      <Section title="Held spends">
        <p class="muted" role="status">
          {state === 'live' ? 'New held spends appear here as they come.' : STREAM_STATES[state]}
        </p>
        <Failure error={approvals.error ?? spend.error} />
        {approvals.loading && <Loading what="the held spends" />}
        {data?.pending.length === 0 && <p>No spend waits for approval.</p>}
        <ul class="plain">
          {data?.pending.map((a) => (
            <Held
              key={a.approval_id}
              approval={a}
              d={d}
              told={data.told.get(a.approval_id)}
              history={
                <History
                  to={a.counterparty}
                  spent={spentTo(a.counterparty)}
                  decided={data.decided}
                  base={d.base}
                />
              }
              onChange={approvals.reload}
            />
          ))}
        </ul>
        <p class="muted">
          Which spends are held is the group’s approval policy:{' '}
          <a href={groupHref(group, 'policy')}>Policy</a>.
        </p>
      </Section>
      <Section title="Decided">{data && <Decided approvals={data.decided} d={d} told={data.told} />}</Section>
    </>
  );
}

/** The inboxes of a group, in order: each decides things a person must decide. */
const INBOXES: { key: string; Inbox: (p: { d: GroupData }) => ComponentChildren }[] = [
  { key: 'held-spends', Inbox: HeldSpends },
  { key: 'proposals', Inbox: Proposals },
];

export const InboxPage = ({ group }: { group: string }) => (
  <GroupFrame group={group} page="inbox">
    {(d) => INBOXES.map(({ key, Inbox }) => <Inbox key={key} d={d} />)}
  </GroupFrame>
);
