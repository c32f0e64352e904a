/**
 * A group's subscriptions (its fleet webhooks and its agents' own): subscribe an HTTPS URL (a fleet
 * webhook may be a proposal the admins sign: signed here, its secret in the executing answer); each
 * endpoint's health (a subscription whose every delivery fails says so, with the error and the next
 * attempt); each delivery with its attempts (when, the receiver's answer or the connection's error,
 * how long it took) and its next retry; send one again; rotate the signing secret and delete, each
 * asked first. The service has no route that sends a test event: there is no such button.
 */
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { enacted } from '../signin';
import {
  Badge,
  ConfirmDialog,
  Failure,
  Field,
  FormBox,
  Loading,
  SecretDialog,
  type Secret,
  Section,
  Status,
  Table,
  useAction,
  useForm,
  useLoad,
  useNow,
} from '../ui';
import { attemptError, endpointHealth, relative, span } from '../words';
import { GroupFrame, type GroupData } from './frame';

type Subscription = Schemas['WebhookSubscriptionView'];
type Delivery = Schemas['DeliveriesResponse']['deliveries'][number];
type EventKind = Schemas['WebhookRequest']['event_types'][number];

/** When a retry is due: "in 8 s", or "due now" once its time passed (the worker takes it at its next pass). */
const nextAttempt = (at: string, now: number) => (Date.parse(at) <= now ? 'due now' : relative(at, now));

const HEALTH_TONE = {
  healthy: 'good',
  failing: 'bad',
  disabled: 'bad',
  waiting: 'info',
  quiet: 'muted',
} as const;

function Attempts({ delivery }: { delivery: Delivery }) {
  return (
    <details>
      <summary>
        {delivery.log.length} attempt{delivery.log.length === 1 ? '' : 's'}
      </summary>
      <ol class="attempts">
        {delivery.log.map((a) => (
          <li key={a.attempt}>
            <time dateTime={a.at}>{new Date(a.at).toLocaleString()}</time>: {a.outcome}
            {a.outcome !== 'delivered' && ` (${attemptError(a)})`}, {a.latency_ms} ms
          </li>
        ))}
      </ol>
    </details>
  );
}

function Deliveries({
  sub,
  deliveries,
  onChange,
}: {
  sub: Subscription;
  deliveries: Delivery[];
  onChange: () => void;
}) {
  const now = useNow();
  const act = useAction();
  if (deliveries.length === 0) return <p>No delivery yet.</p>;
  return (
    <>
      <Failure error={act.error} />
      <Table
        label={`Deliveries to ${sub.url}`}
        heads={['Event', 'Status', 'Attempts', 'Last error', 'Next attempt', 'Created', 'Actions']}
      >
        {deliveries.map((x) => {
          const last = x.log.at(-1);
          return (
            <tr key={x.event_id}>
              <td class="mono nowrap">{x.event}</td>
              <td>
                <Status status={x.status} />
              </td>
              <td>{x.log.length > 0 ? <Attempts delivery={x} /> : x.attempts}</td>
              <td>{last && last.outcome !== 'delivered' ? attemptError(last) : '—'}</td>
              <td>
                {x.next_attempt_at && x.status === 'failed'
                  ? nextAttempt(x.next_attempt_at, now)
                  : x.status === 'dead'
                    ? 'no more: it gave up'
                    : '—'}
              </td>
              <td>{new Date(x.created_at).toLocaleString()}</td>
              <td>
                <button
                  type="button"
                  class="secondary small"
                  disabled={act.busy}
                  aria-label={`Send ${x.event} ${x.event_id} again`}
                  onClick={() =>
                    act.call(
                      () =>
                        api.POST('/orchestrator/webhooks/{webhook}/redeliver', {
                          params: { path: { webhook: sub.webhook_id } },
                          body: { event_id: x.event_id },
                        }),
                      onChange,
                    )
                  }
                >
                  Redeliver
                </button>
              </td>
            </tr>
          );
        })}
      </Table>
    </>
  );
}

function SubscriptionCard({
  sub,
  d,
  onChange,
  onSecret,
}: {
  sub: Subscription;
  d: GroupData;
  onChange: () => void;
  onSecret: (secret: { url: string; value: string; until: string }) => void;
}) {
  const path = { params: { path: { webhook: sub.webhook_id } } };
  // The last 50 deliveries: a fleet's proposals and signatures are delivered too, beside its spends.
  const log = useLoad(
    () =>
      ok(
        api.GET('/orchestrator/webhooks/{webhook}/deliveries', {
          params: { ...path.params, query: { limit: 50 } },
        }),
      ),
    [sub.webhook_id],
  );
  const [asking, setAsking] = useState<'rotate' | 'delete'>();
  const now = useNow(5000);
  const health = log.data ? endpointHealth(sub, log.data.deliveries) : undefined;
  return (
    <li class="card" aria-label={`Subscription ${sub.url}`}>
      <h3 class="mono">{sub.url}</h3>
      <p>
        {sub.scope === 'group'
          ? 'Fleet (every agent)'
          : `Agent ${d.names[sub.agent_wallet_pda ?? ''] ?? sub.agent_wallet_pda ?? ''}`}{' '}
        · {sub.event_types.length} event kinds
        {sub.previous_secret_valid_until &&
          ` · the previous secret also verifies until ${new Date(sub.previous_secret_valid_until).toLocaleString()}`}
      </p>
      {health && (
        <p class="health" data-testid="health">
          <Badge tone={HEALTH_TONE[health.state]}>{health.state}</Badge> {health.text}
          {health.error && `: ${health.error}`}
          {health.next && `; next attempt ${nextAttempt(health.next, now)}`}
        </p>
      )}
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setAsking('rotate')}>
          Rotate secret
        </button>
        <button type="button" class="danger" onClick={() => setAsking('delete')}>
          Delete
        </button>
        <button type="button" class="secondary" onClick={log.reload}>
          Refresh deliveries
        </button>
      </div>
      <h4>Deliveries</h4>
      {log.loading && <Loading what="its deliveries" />}
      <Failure error={log.error} />
      {log.data && <Deliveries sub={sub} deliveries={log.data.deliveries} onChange={log.reload} />}
      {asking === 'rotate' && (
        <ConfirmDialog
          title={`Rotate the signing secret of ${sub.url}?`}
          breaks={
            <p>
              Deliveries are signed with a new secret from now on. The old one also verifies for{' '}
              {span(86_400_000)}: give the receiver the new secret before then, or it refuses every delivery.
            </p>
          }
          confirm="Rotate secret"
          onClose={() => setAsking(undefined)}
          onConfirm={async () => {
            const answer = await ok(
              api.POST('/orchestrator/webhooks/{webhook}/rotate-secret', { ...path, body: {} }),
            );
            onSecret({
              url: sub.url,
              value: answer.signing_secret,
              until: answer.previous_secret_valid_until,
            });
            onChange();
          }}
        />
      )}
      {asking === 'delete' && (
        <ConfirmDialog
          title={`Delete the subscription of ${sub.url}?`}
          breaks={<p>No more event is sent to it, and its pending retries are cancelled.</p>}
          confirm="Delete"
          onClose={() => setAsking(undefined)}
          onConfirm={async () => {
            await ok(api.DELETE('/orchestrator/webhooks/{webhook}', path));
            onChange();
          }}
        />
      )}
    </li>
  );
}

/** The event kinds a subscription may take: the enum of the operator document's WebhookRequest. */
async function eventKinds(): Promise<EventKind[]> {
  const doc = (await (await fetch('/api/v1/orchestrator/openapi.json')).json()) as {
    components: {
      schemas: { WebhookRequest: { properties: { event_types: { items: { enum: EventKind[] } } } } };
    };
  };
  return doc.components.schemas.WebhookRequest.properties.event_types.items.enum;
}

const SUBSCRIBE_FIELDS = {
  url: { label: 'HTTPS URL', kind: 'url', required: true },
  event_types: { label: 'Events' },
} as const;

function Subscribe({ d, onDone }: { d: GroupData; onDone: (secret: string) => void }) {
  const kinds = useLoad(eventKinds);
  const form = useForm(SUBSCRIBE_FIELDS);
  return (
    <Section title="Subscribe">
      <FormBox
        form={form}
        label="Subscribe a URL"
        onSubmit={(e) => {
          const chosen = new FormData(e.currentTarget as HTMLFormElement)
            .getAll('event_types')
            .map(String) as EventKind[];
          void form.submit(
            // Made at once (201), or a proposal (202) signed here: its result holds the secret then.
            (f) =>
              enacted(
                api.POST('/orchestrator/groups/{group}/webhooks', {
                  params: { path: { group: d.id } },
                  body: { url: f.url!, event_types: chosen },
                }),
              ) as Promise<{ data?: { signing_secret: string }; error?: unknown; response: Response }>,
            (a) => onDone(a.signing_secret),
          )(e);
        }}
      >
        <Field form={form} name="url" type="url" placeholder="https://…" />
        <fieldset aria-describedby={form.errors.event_types ? 'event-types-error' : undefined}>
          <legend>Events</legend>
          {kinds.data?.map((k) => (
            <label key={k} class="check">
              <input type="checkbox" name="event_types" value={k} defaultChecked />
              {k}
            </label>
          ))}
          {form.errors.event_types && (
            <span class="field-error" id="event-types-error">
              {form.errors.event_types}
            </span>
          )}
        </fieldset>
        <button type="submit" disabled={form.busy}>
          Subscribe
        </button>
      </FormBox>
    </Section>
  );
}

function Webhooks({ d }: { d: GroupData }) {
  const list = useLoad(
    () => ok(api.GET('/orchestrator/groups/{group}/webhooks', { params: { path: { group: d.id } } })),
    [d.id],
  );
  const [secret, setSecret] = useState<Secret>();
  const live = list.data?.webhooks.filter((w) => w.status !== 'deleted') ?? [];
  return (
    <>
      <Subscribe
        d={d}
        onDone={(value) => {
          setSecret({
            title: 'The signing secret',
            value,
            about: 'The receiver verifies each delivery’s signature with it (docs/usage.md).',
          });
          list.reload();
        }}
      />
      <Section title="Subscriptions">
        {list.loading && <Loading what="the subscriptions" />}
        <Failure error={list.error} />
        {list.data && live.length === 0 && <p>No subscription yet.</p>}
        <ul class="plain">
          {live.map((w) => (
            <SubscriptionCard
              key={w.webhook_id}
              sub={w}
              d={d}
              onChange={list.reload}
              onSecret={(s) =>
                setSecret({
                  title: 'The new signing secret',
                  value: s.value,
                  about: `The previous secret also verifies until ${new Date(s.until).toLocaleString()}.`,
                })
              }
            />
          ))}
        </ul>
      </Section>
      {secret && <SecretDialog secret={secret} onDone={() => setSecret(undefined)} />}
    </>
  );
}

export const WebhooksPage = ({ group }: { group: string }) => (
  <GroupFrame group={group} page="webhooks">
    {(d) => <Webhooks d={d} />}
  </GroupFrame>
);
