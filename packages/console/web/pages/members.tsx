/**
 * The group's team (docs/governance.md): its members with their roles, and its governance policy
 * (quorum, delay, safe destination) as it is in force. Adding a member (or giving one another role),
 * removing one and changing the governance are each a proposal, signed here with the signed-in wallet
 * (enacted): made at once under a quorum of one, said to wait when other admins must sign. Each
 * field's error is said next to it. Approvers and viewers read the team; only admins see its forms.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { enacted } from '../signin';
import {
  Address,
  ConfirmDialog,
  Failure,
  Field,
  FormBox,
  Loading,
  Section,
  Table,
  failureText,
  short,
  useForm,
  useLoad,
} from '../ui';
import { span } from '../words';
import { GroupFrame, useReloadOn, type GroupData } from './frame';

type Member = Schemas['Member'];
type Role = Member['role'];
type Governance = Schemas['GovernanceResponse'];

/** What each role may, as the page says it. */
const ROLES: Record<Role, string> = {
  admin: 'changes the group: proposes, signs and cancels proposals, freezes, narrows at once',
  approver: 'decides held spends (approves, rejects), and reads',
  viewer: 'reads the group, its agents, its proposals and its log; changes nothing',
};

/** What removing a member stops, by its role. */
const REMOVAL: Record<Role, string> = {
  admin: 'It signs no proposal and changes nothing of the group from then on, and reads nothing of it.',
  approver:
    'It decides no held spend from then on, whatever an approval policy names, and reads nothing of the group.',
  viewer: 'It reads nothing of the group from then on.',
};

const MEMBER_FIELDS = {
  wallet: { label: 'Wallet', kind: 'address', required: true },
  role: { label: 'Role', required: true },
} as const;

function AddMember({
  d,
  members,
  onDone,
}: {
  d: GroupData;
  members: Member[] | undefined;
  onDone: () => void;
}) {
  const form = useForm(MEMBER_FIELDS);
  // The member last proposed: once the team has it (the other admins signed), its proposal waits no more.
  const asked = useRef<Member>();
  useEffect(() => {
    const a = asked.current;
    if (a && members?.some((m) => m.wallet === a.wallet && m.role === a.role)) form.clearProposed();
  }, [members]);
  const roleError = form.errors.role;
  return (
    <>
      <h3>Add a member, or change a member’s role</h3>
      <FormBox
        form={form}
        label="Add a member"
        onSubmit={form.submit((f) => {
          asked.current = { wallet: f.wallet!, role: f.role as Role };
          return enacted(
            api.POST('/orchestrator/groups/{group}/members', {
              params: { path: { group: d.id } },
              body: asked.current,
            }),
          );
        }, onDone)}
      >
        <Field form={form} name="wallet" hint="the wallet it signs in with" />
        <div class={`field${roleError ? ' invalid' : ''}`}>
          <label for="member-role">Role</label>
          <select
            id="member-role"
            name="role"
            aria-invalid={roleError ? 'true' : undefined}
            aria-describedby={roleError ? 'member-role-error' : undefined}
          >
            <option value="viewer">viewer</option>
            <option value="approver">approver</option>
            <option value="admin">admin</option>
          </select>
          {roleError && (
            <span class="field-error" id="member-role-error">
              {roleError}
            </span>
          )}
        </div>
        <button type="submit" disabled={form.busy}>
          Propose
        </button>
      </FormBox>
    </>
  );
}

function Members({ d, changes }: { d: GroupData; changes: number }) {
  const path = { params: { path: { group: d.id } } };
  const members = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/members', path)), [d.id, changes]);
  const [removing, setRemoving] = useState<Member>();
  const list = members.data?.members;
  const name = (wallet: string) => d.names[wallet] ?? short(wallet);
  return (
    <Section title="Members">
      <ul class="plain muted">
        {(Object.keys(ROLES) as Role[]).map((r) => (
          <li key={r}>
            <strong>{r}</strong>: {ROLES[r]}
          </li>
        ))}
      </ul>
      {members.loading && <Loading what="the members" />}
      <Failure error={members.error} />
      {list && (
        <Table label="The group’s members" heads={['Wallet', 'Role', ...(d.admin ? ['Actions'] : [])]}>
          {list.map((m) => (
            <tr key={m.wallet} data-testid="member">
              <td>
                <Address id={m.wallet} names={d.names} />
              </td>
              <td>{m.role}</td>
              {d.admin && (
                <td>
                  <button type="button" class="secondary small" onClick={() => setRemoving(m)}>
                    Remove <span class="visually-hidden">{name(m.wallet)}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
      {d.admin ? (
        <AddMember d={d} members={list} onDone={members.reload} />
      ) : (
        <p class="muted">Only the group’s admins change its team.</p>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${name(removing.wallet)} from the group?`}
          breaks={
            <p>
              {REMOVAL[removing.role]} Removing a member is a proposal: nothing changes until the group’s
              admins have signed it.
            </p>
          }
          confirm="Remove"
          onClose={() => setRemoving(undefined)}
          onConfirm={async () => {
            await ok(
              enacted(
                api.DELETE('/orchestrator/groups/{group}/members/{wallet}', {
                  params: { path: { group: d.id, wallet: removing.wallet } },
                }),
              ),
            );
            members.reload();
          }}
        />
      )}
    </Section>
  );
}

/** The governance in force, in words. */
function GovernanceText({ g, d }: { g: Governance; d: GroupData }) {
  return (
    <>
      each widening change needs the signatures of {g.quorum} of the group’s {g.admins} admin
      {g.admins === 1 ? '' : 's'} (quorum {g.quorum});{' '}
      {g.delay_seconds === 0
        ? 'it is made as soon as it has them (no delay)'
        : `it is made ${span(g.delay_seconds * 1000)} after it has them (the delay)`}
      ; an emergency withdrawal goes to <Address id={g.safe_destination} names={d.names} /> unless a proposal
      says otherwise.
    </>
  );
}

const GOVERNANCE_FIELDS = {
  quorum: { label: 'Quorum', kind: 'integer', required: true, min: 1, max: 100 },
  delay_hours: {
    label: 'Delay (hours)',
    kind: 'number',
    required: true,
    min: 0,
    max: 144,
    api: 'delay_seconds',
  },
  safe_destination: { label: 'Safe destination', kind: 'address', required: true },
} as const;

function GovernancePolicy({ d, changes }: { d: GroupData; changes: number }) {
  const path = { params: { path: { group: d.id } } };
  const inForce = useLoad(
    () => ok(api.GET('/orchestrator/groups/{group}/governance', path)),
    [d.id, changes],
  );
  const form = useForm(GOVERNANCE_FIELDS);
  const [changed, setChanged] = useState(false);
  // The change last proposed: once it is in force (the other admins signed), it waits no more.
  const asked = useRef<Partial<Governance>>();
  const g = inForce.data;
  useEffect(() => {
    const a = asked.current;
    if (a && g && (Object.keys(a) as (keyof Governance)[]).every((k) => a[k] === g[k])) form.clearProposed();
  }, [g]);
  return (
    <Section title="Governance">
      <p>
        Stopping is one click of any admin (Freeze); opening again, and every change that widens what the
        group’s agents may spend or who may act, is a proposal the admins sign with their wallets.
      </p>
      <p data-testid="governance-in-force">
        <strong>In force:</strong>{' '}
        {g ? <GovernanceText g={g} d={d} /> : inForce.error ? failureText(inForce.error) : 'loading…'}
      </p>
      {g && d.admin && (
        <FormBox
          // Filled from the policy in force: a new one, made or read again, fills it afresh.
          key={JSON.stringify(g)}
          form={form}
          label="Change the governance"
          onSubmit={form.submit(
            (f) => {
              const delay = Math.round(Number(f.delay_hours) * 3600);
              const body = {
                ...(Number(f.quorum) !== g.quorum && { quorum: Number(f.quorum) }),
                ...(delay !== g.delay_seconds && { delay_seconds: delay }),
                ...(f.safe_destination !== g.safe_destination && { safe_destination: f.safe_destination! }),
              };
              if (Object.keys(body).length === 0)
                throw new Error('Nothing to change: the form holds the governance in force.');
              asked.current = body;
              return enacted(api.PUT('/orchestrator/groups/{group}/governance', { ...path, body }));
            },
            () => {
              setChanged(true);
              inForce.reload();
            },
            { reset: false },
          )}
        >
          <Field
            form={form}
            name="quorum"
            defaultValue={String(g.quorum)}
            hint={`at most the ${g.admins} admin${g.admins === 1 ? '' : 's'}`}
          />
          <Field
            form={form}
            name="delay_hours"
            defaultValue={String(g.delay_seconds / 3600)}
            hint="0: made as soon as signed"
          />
          <Field form={form} name="safe_destination" defaultValue={g.safe_destination} />
          <button type="submit" disabled={form.busy}>
            Propose
          </button>
        </FormBox>
      )}
      {changed && (
        <p role="status" class="notice">
          Governance changed.
        </p>
      )}
    </Section>
  );
}

/** The team and its governance, read again when a change of either is made (another admin's signature). */
function Team({ d }: { d: GroupData }) {
  const [changes, setChanges] = useState(0);
  useReloadOn(d.id, /^(member\.|governance\.policy_set$)/, () => {
    setChanges((n) => n + 1);
    d.reloadRole();
  });
  return (
    <>
      <Members d={d} changes={changes} />
      <GovernancePolicy d={d} changes={changes} />
    </>
  );
}

export const MembersPage = ({ group }: { group: string }) => (
  <GroupFrame group={group} page="members">
    {(d) => <Team d={d} />}
  </GroupFrame>
);
