/**
 * The kill switch (docs/governance.md): any one admin freezes an agent, or the whole group, at once:
 * a reason asked (optional: every refused spend says it) and confirmed once, then the frozen state said
 * plainly, with who froze it, why and when (GET /orchestrator/groups/{group} has `frozen` for the group
 * and for each agent). Lifting a freeze widens what agents may spend, so it is a proposal: signed here
 * by the signed-in admin (enacted), and said so when more admins must sign it.
 */
import { useState } from 'preact/hooks';
import { api, ok } from '../api';
import { GUARD, frozenWords } from '../describe';
import { enacted, KeypairAgain } from '../signin';
import { Badge, ConfirmDialog, Failure, Proposed, short, useAction } from '../ui';
import { wordingOf, type Agent, type GroupData } from './frame';

/** The reason a freeze's confirmation asks, optional. */
const ReasonField = () => (
  <div class="field">
    <label for="freeze-reason">
      Reason <span class="optional">(optional: every refused spend says it, and the log keeps it)</span>
    </label>
    <input id="freeze-reason" name="reason" maxLength={200} autoComplete="off" />
  </div>
);

const reasonBody = (f: Record<string, string>) => (f.reason ? { reason: f.reason } : {});

/** What a freeze failed of the accepted spends not yet sent, in words. */
export const failedWords = (n: number): string =>
  n === 0
    ? 'No accepted spend was waiting to be sent.'
    : `${n} accepted ${n === 1 ? 'spend' : 'spends'} not yet sent failed (their room given back).`;

/** An agent's name as the page says it. */
const nameOf = (agent: Agent) => agent.label ?? short(agent.agent_wallet_pda);

/** Asks once, with a reason, before an agent is frozen; `onFrozen` is told how many spends failed. */
export function FreezeAgentDialog({
  agent,
  onClose,
  onFrozen,
}: {
  agent: Agent;
  onClose: () => void;
  onFrozen: (failed: number) => void;
}) {
  const name = nameOf(agent);
  return (
    <ConfirmDialog
      title={`Freeze ${name}?`}
      breaks={
        <p>
          Every spend of {name} is refused from now on (agent_frozen), whichever instance of the service
          decides it; its accepted spends not yet sent fail and give their room back, and its held spends are
          rejected. Its reads, its webhooks and the log go on. Lifting the freeze is a proposal the group’s
          admins sign.
        </p>
      }
      confirm="Freeze"
      onClose={onClose}
      onConfirm={async (f) => {
        const answer = await ok(
          api.POST('/orchestrator/agents/{agent}/freeze', {
            params: { path: { agent: agent.agent_wallet_pda } },
            body: reasonBody(f),
          }),
        );
        onFrozen(answer.failed_intents);
      }}
    >
      <ReasonField />
    </ConfirmDialog>
  );
}

/**
 * Lifts a freeze (an agent's, or the group's): proposed and signed with the signed-in wallet; when the
 * quorum needs other admins, the page says so and nothing changes until they sign.
 */
export function LiftFreeze({ d, agent }: { d: GroupData; agent?: Agent }) {
  const act = useAction();
  const lift = () =>
    agent
      ? enacted(
          api.POST('/orchestrator/agents/{agent}/unfreeze', {
            params: { path: { agent: agent.agent_wallet_pda } },
            body: {},
          }),
        )
      : enacted(
          api.POST('/orchestrator/groups/{group}/unfreeze', { params: { path: { group: d.id } }, body: {} }),
        );
  return (
    <div>
      <div class="actions">
        <button type="button" disabled={act.busy} onClick={() => void act.run(() => ok(lift()), d.reload)}>
          Lift the freeze (sign)
          {agent && <span class="visually-hidden"> of {nameOf(agent)}</span>}
        </button>
      </div>
      <Proposed text={act.proposed} />
      <Failure error={act.error} />
      <KeypairAgain />
    </div>
  );
}

/** An agent's freeze: who froze it (an admin, or the guard with its rule), why and when. */
export const FrozenBy = ({ d, frozen }: { d: GroupData; frozen: NonNullable<Agent['frozen']> }) => (
  <span class="frozen-by">frozen {frozenWords(frozen, wordingOf(d).name)}</span>
);

/** The mark of a frozen agent: "frozen", or "frozen by the guard" when a rule of the guard froze it. */
export const FrozenBadge = ({ frozen }: { frozen: NonNullable<Agent['frozen']> }) => (
  <Badge tone="bad">{frozen.by === GUARD ? 'frozen by the guard' : 'frozen'}</Badge>
);

/**
 * The group's kill switch, above its tabs on every page of it: the Freeze button (for admins), or,
 * once frozen, a banner saying who froze it, why and when, and the button that lifts it.
 */
export function GroupFreeze({ d }: { d: GroupData }) {
  const [asking, setAsking] = useState(false);
  const [failed, setFailed] = useState<number>();
  const frozen = d.view.frozen;
  if (!frozen)
    return d.admin ? (
      <div class="freeze-bar">
        <button type="button" class="danger" onClick={() => setAsking(true)}>
          Freeze the group
        </button>
        <span class="muted">stops every spend of its agents at once</span>
        {asking && (
          <ConfirmDialog
            title="Freeze the whole group?"
            breaks={
              <p>
                Every spend of every agent of the group is refused from now on (group_frozen); their accepted
                spends not yet sent fail and give their room back, and held spends are rejected. Reads,
                webhooks and the log go on. Lifting the freeze is a proposal the group’s admins sign.
              </p>
            }
            confirm="Freeze the group"
            onClose={() => setAsking(false)}
            onConfirm={async (f) => {
              const answer = await ok(
                api.POST('/orchestrator/groups/{group}/freeze', {
                  params: { path: { group: d.id } },
                  body: reasonBody(f),
                }),
              );
              setFailed(answer.failed_intents);
              d.reload();
            }}
          >
            <ReasonField />
          </ConfirmDialog>
        )}
      </div>
    ) : null;
  return (
    <section class="banner" aria-label="The group is frozen" data-testid="group-frozen">
      <p>
        <strong>The group is frozen:</strong> every spend of its agents is refused,{' '}
        {frozenWords(frozen, wordingOf(d).name)}.{failed !== undefined && ` ${failedWords(failed)}`}
      </p>
      {d.admin && <LiftFreeze d={d} />}
    </section>
  );
}
