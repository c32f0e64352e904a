/**
 * The proposals inbox, beside the held spends (docs/governance.md): each open proposal (pending, or
 * ready and waiting for the governance delay) with what it changes in words, who proposed it, its
 * signatures (n of m, and whose) and its expiry. An admin signs its message here with the signed-in
 * wallet (the signature that makes the quorum executes it; a secret the change makes, an invitation
 * code or a key, stays on screen until dismissed), or cancels it, asked first. Below, the recent
 * closed ones with how each ended. Approvers and viewers read them, with no button to press.
 */
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { proposalWords } from '../describe';
import { KeypairAgain, signWithWallet } from '../signin';
import { session } from '../session';
import {
  Address,
  ConfirmDialog,
  Failure,
  Loading,
  SecretDialog,
  Section,
  Status,
  Table,
  type Names,
  type Secret,
  useAction,
  useLoad,
  useNow,
} from '../ui';
import { clock, countdown, relative } from '../words';
import { useReloadOn, wordingOf, type GroupData } from './frame';

export type Proposal = Schemas['Proposal'];

const OPEN = ['pending', 'ready'] as const;
const CLOSED = ['executed', 'cancelled', 'expired', 'failed'] as const;
/** How many closed proposals the page shows, newest first. */
const RECENT = 20;

/** The group's proposals, newest first: the open ones, and the recent closed ones (one read of them all). */
export async function proposalsOf(group: string): Promise<{ open: Proposal[]; closed: Proposal[] }> {
  const { proposals } = await ok(
    api.GET('/orchestrator/groups/{group}/proposals', { params: { path: { group } } }),
  );
  const newest = [...proposals].sort((x, y) => y.created_at.localeCompare(x.created_at));
  const among = (statuses: readonly string[]) => newest.filter((p) => statuses.includes(p.status));
  return { open: among(OPEN), closed: among(CLOSED).slice(0, RECENT) };
}

/** What a proposal changes, as the page says it (its first letter capitalised). */
export const proposalTitle = (p: Proposal, d: GroupData): string => {
  const words = proposalWords(p.action, p.params as Record<string, unknown>, wordingOf(d));
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** A secret an executed proposal's change made (in the answer of the signature that executed it). */
export function secretOf(result: unknown): Secret | undefined {
  const r = (result ?? {}) as Record<string, unknown>;
  if (typeof r.invitation_code === 'string')
    return {
      title: 'The invitation code',
      value: r.invitation_code,
      about: `The agent registers with it (POST /api/v1/register)${
        typeof r.expires_at === 'string' ? ` before ${new Date(r.expires_at).toLocaleString()}` : ''
      }, and gets its API key then.`,
    };
  if (typeof r.api_key === 'string')
    return {
      title: 'The new API key',
      value: r.api_key,
      about: 'Give it to the agent: it spends with this key from now on.',
    };
  if (typeof r.signing_secret === 'string')
    return {
      title: 'The signing secret',
      value: r.signing_secret,
      about: 'The receiver verifies each delivery’s signature with it (docs/usage.md).',
    };
  return undefined;
}

/** What a signature did, in a sentence. */
function signedWords(p: Proposal, title: string): string {
  switch (p.status) {
    case 'executed':
      return `Signed and made: ${title}.`;
    case 'ready':
      return `Signed: ${title} has its quorum and is made at ${clock(p.ready_at ?? p.expires_at)}, after the governance delay.`;
    case 'failed':
      return `Signed, but the change no longer applies: ${p.reason ?? 'it failed'}.`;
    default:
      return `Signed (${p.signatures.length} of ${p.signatures_required} signatures): ${title} waits for the other admins.`;
  }
}

const Wallets = ({ ids, names }: { ids: string[]; names: Names }) => (
  <span class="wallets">
    {ids.map((id) => (
      <Address key={id} id={id} names={names} />
    ))}
  </span>
);

function OpenProposal({
  p,
  d,
  onSigned,
  onCancelled,
}: {
  p: Proposal;
  d: GroupData;
  onSigned: (answer: Proposal) => void;
  onCancelled: () => void;
}) {
  const now = useNow();
  const act = useAction();
  const [cancelling, setCancelling] = useState(false);
  const title = proposalTitle(p, d);
  const me = session()?.wallet;
  const signedByMe = p.signatures.some((s) => s.wallet === me);
  const path = { params: { path: { proposal: p.proposal_id } } };
  return (
    <li class="card" aria-label={`Proposal: ${title}`} data-testid="proposal">
      <h3>{title}</h3>
      <dl class="terms">
        <dt>Proposed by</dt>
        <dd>
          <Address id={p.proposed_by} names={d.names} />{' '}
          <time dateTime={p.created_at}>{relative(p.created_at, now)}</time>
        </dd>
        <dt>Signed</dt>
        <dd data-testid="signatures">
          {p.signatures.length} of {p.signatures_required}
          {p.signatures.length > 0 && ': '}
          <Wallets ids={p.signatures.map((s) => s.wallet)} names={d.names} />
        </dd>
        <dt>Status</dt>
        <dd>
          <Status status={p.status} />{' '}
          {p.status === 'ready' && p.ready_at
            ? `it has its quorum: made at ${clock(p.ready_at)} (${relative(p.ready_at, now)}), after the governance delay`
            : `it waits for ${p.signatures_required - p.signatures.length} more admin signature(s)`}
        </dd>
        <dt>Expires</dt>
        <dd>
          <time dateTime={p.expires_at}>{countdown(p.expires_at, now)}</time>
        </dd>
        <dt>Proposal</dt>
        <dd class="mono">{p.proposal_id}</dd>
      </dl>
      {d.admin && (
        <div class="actions">
          {p.status === 'pending' && !signedByMe && (
            <button
              type="button"
              disabled={act.busy}
              onClick={() =>
                void act.run(async () => {
                  const signature = await signWithWallet(p.message);
                  return ok(
                    api.POST('/orchestrator/proposals/{proposal}/sign', { ...path, body: { signature } }),
                  );
                }, onSigned)
              }
            >
              Sign
            </button>
          )}
          {signedByMe && <span class="muted">You signed it.</span>}
          <button type="button" class="secondary" onClick={() => setCancelling(true)}>
            Cancel proposal
          </button>
        </div>
      )}
      <Failure error={act.error} />
      {cancelling && (
        <ConfirmDialog
          title="Cancel this proposal?"
          breaks={
            <p>
              {title}: nothing of it is made, and no admin can sign it any more. Proposing the change again
              starts a new proposal.
            </p>
          }
          confirm="Cancel the proposal"
          keep="Keep it"
          onClose={() => setCancelling(false)}
          onConfirm={async (f) => {
            await ok(
              api.POST('/orchestrator/proposals/{proposal}/cancel', {
                ...path,
                body: f.reason ? { reason: f.reason } : {},
              }),
            );
            onCancelled();
          }}
        >
          <div class="field">
            <label for="cancel-reason">
              Reason <span class="optional">(optional)</span>
            </label>
            <input id="cancel-reason" name="reason" maxLength={200} autoComplete="off" />
          </div>
        </ConfirmDialog>
      )}
    </li>
  );
}

/** How a closed proposal ended, in words. */
function ended(p: Proposal, d: GroupData): string {
  switch (p.status) {
    case 'executed':
      return `made, signed by ${p.signatures.map((s) => wordingOf(d).name(s.wallet)).join(', ')}`;
    case 'cancelled':
      return `cancelled${p.reason ? `: “${p.reason}”` : ' (no reason given)'}`;
    case 'expired':
      return 'expired: not enough admins signed it in time';
    default:
      return `failed: ${p.reason ?? 'the change no longer applied'}`;
  }
}

function Closed({ proposals, d }: { proposals: Proposal[]; d: GroupData }) {
  if (proposals.length === 0) return <p>No proposal closed yet.</p>;
  return (
    <Table
      label="Recent closed proposals"
      heads={['Status', 'Change', 'Proposed by', 'Proposed', 'Signed', 'How it ended']}
    >
      {proposals.map((p) => (
        <tr key={p.proposal_id} data-testid="closed-proposal">
          <td>
            <Status status={p.status} />
          </td>
          <td>{proposalTitle(p, d)}</td>
          <td>
            <Address id={p.proposed_by} names={d.names} />
          </td>
          <td>{new Date(p.created_at).toLocaleString()}</td>
          <td>
            {p.signatures.length} of {p.signatures_required}
          </td>
          <td data-testid="ended">{ended(p, d)}</td>
        </tr>
      ))}
    </Table>
  );
}

export function Proposals({ d }: { d: GroupData }) {
  const group = d.id;
  const list = useLoad(() => proposalsOf(group), [group]);
  const [said, setSaid] = useState<string>();
  const [secret, setSecret] = useState<Secret>();
  useReloadOn(group, /^governance\./, list.reload);
  const changed = () => {
    list.reload();
    d.reload(); // an executed change changes the group (a freeze lifted, an agent invited)
  };
  const data = list.data;
  return (
    <>
      <Section title="Proposals">
        <p class="muted">
          Changes that widen what the group’s agents may spend, or who may act, wait here for the admins’
          signatures.
        </p>
        {said && (
          <p role="status" class="notice" data-testid="proposal-outcome">
            {said}
          </p>
        )}
        <Failure error={list.error} />
        {list.loading && <Loading what="the proposals" />}
        {data?.open.length === 0 && <p>No proposal waits for signatures.</p>}
        {d.admin && data && data.open.length > 0 && <KeypairAgain />}
        <ul class="plain">
          {data?.open.map((p) => (
            <OpenProposal
              key={p.proposal_id}
              p={p}
              d={d}
              onSigned={(answer) => {
                setSaid(signedWords(answer, proposalTitle(answer, d)));
                const made = answer.status === 'executed' ? secretOf(answer.result) : undefined;
                if (made) setSecret(made);
                changed();
              }}
              onCancelled={() => {
                setSaid(`Cancelled: ${proposalTitle(p, d)}.`);
                list.reload();
              }}
            />
          ))}
        </ul>
      </Section>
      <Section title="Closed proposals">{data && <Closed proposals={data.closed} d={d} />}</Section>
      {secret && <SecretDialog secret={secret} onDone={() => setSecret(undefined)} />}
    </>
  );
}
