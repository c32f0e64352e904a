/**
 * A group's subscriptions (its fleet webhooks and its agents' own): subscribe an HTTPS URL, see each
 * one's deliveries with status and attempts, send events again, rotate the signing secret, delete.
 */
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { Failure, GroupTabs, Section, ShownOnce, fields, useAction, useLoad } from '../ui';

type Subscription = Schemas['WebhookSubscriptionView'];

function Deliveries({ webhook }: { webhook: string }) {
  const path = { params: { path: { webhook } } };
  const log = useLoad(() => ok(api.GET('/orchestrator/webhooks/{webhook}/deliveries', path)), [webhook]);
  const act = useAction();
  return (
    <>
      <Failure error={log.error ?? act.error} />
      {log.data && log.data.deliveries.length === 0 && <p>No delivery yet.</p>}
      {log.data && log.data.deliveries.length > 0 && (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.data.deliveries.map((d) => (
                <tr key={d.event_id}>
                  <td>{d.event}</td>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td>{new Date(d.created_at).toLocaleString()}</td>
                  <td>
                    <button
                      type="button"
                      disabled={act.busy}
                      aria-label={`Send ${d.event} ${d.event_id} again`}
                      onClick={() =>
                        act.call(
                          () =>
                            api.POST('/orchestrator/webhooks/{webhook}/redeliver', {
                              ...path,
                              body: { event_id: d.event_id },
                            }),
                          log.reload,
                        )
                      }
                    >
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function SubscriptionCard({ sub, onChange }: { sub: Subscription; onChange: () => void }) {
  const act = useAction();
  const [secret, setSecret] = useState<string>();
  const path = { params: { path: { webhook: sub.webhook_id } } };
  return (
    <li class="card" aria-label={`Subscription ${sub.url}`}>
      <h3 class="mono">{sub.url}</h3>
      <p>
        {sub.scope === 'group' ? 'Fleet (every agent)' : `Agent ${sub.agent_wallet_pda ?? ''}`} · {sub.status}
        {sub.status_reason ? ` (${sub.status_reason})` : ''} · {sub.event_types.join(', ')}
      </p>
      {sub.status !== 'deleted' && (
        <div class="actions">
          <button
            type="button"
            disabled={act.busy}
            onClick={() =>
              act.call(
                () => api.POST('/orchestrator/webhooks/{webhook}/rotate-secret', { ...path, body: {} }),
                (a) => setSecret(a.signing_secret),
              )
            }
          >
            Rotate secret
          </button>
          <button
            type="button"
            disabled={act.busy}
            onClick={() =>
              confirm(`Delete the subscription of ${sub.url}?`) &&
              act.call(() => api.DELETE('/orchestrator/webhooks/{webhook}', path), onChange)
            }
          >
            Delete
          </button>
        </div>
      )}
      {secret && <ShownOnce label="The new signing secret" value={secret} />}
      <Failure error={act.error} />
      <h4>Deliveries</h4>
      <Deliveries webhook={sub.webhook_id} />
    </li>
  );
}

type EventKind = Schemas['WebhookRequest']['event_types'][number];

/** The event kinds a subscription may take: the enum of the operator document's WebhookRequest. */
async function eventKinds(): Promise<EventKind[]> {
  const doc = (await (await fetch('/api/v1/orchestrator/openapi.json')).json()) as {
    components: {
      schemas: { WebhookRequest: { properties: { event_types: { items: { enum: EventKind[] } } } } };
    };
  };
  return doc.components.schemas.WebhookRequest.properties.event_types.items.enum;
}

export function Webhooks({ group }: { group: string }) {
  const path = { params: { path: { group } } };
  const kinds = useLoad(eventKinds);
  const list = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/webhooks', path)), [group]);
  const act = useAction();
  const [secret, setSecret] = useState<string>();
  return (
    <>
      <h1>Webhooks</h1>
      <GroupTabs group={group} current="webhooks" />
      <Section title="Subscribe">
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget as HTMLFormElement;
            const url = fields(form).url!;
            const chosen = new FormData(form).getAll('event_types').map(String) as EventKind[];
            act.call(
              () =>
                api.POST('/orchestrator/groups/{group}/webhooks', {
                  ...path,
                  body: { url, event_types: chosen },
                }),
              (a) => {
                form.reset();
                setSecret(a.signing_secret);
                list.reload();
              },
            );
          }}
        >
          <label>
            HTTPS URL
            <input name="url" type="url" required pattern="https://.*" class="mono" />
          </label>
          <fieldset>
            <legend>Events</legend>
            {kinds.data?.map((k) => (
              <label key={k} class="check">
                <input type="checkbox" name="event_types" value={k} defaultChecked />
                {k}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={act.busy}>
            Subscribe
          </button>
        </form>
        {secret && <ShownOnce label="The signing secret" value={secret} />}
        <Failure error={act.error} />
      </Section>
      <Section title="Subscriptions">
        <Failure error={list.error} />
        {list.data && list.data.webhooks.length === 0 && <p>No subscription yet.</p>}
        <ul class="plain">
          {list.data?.webhooks.map((w) => (
            <SubscriptionCard key={w.webhook_id} sub={w} onChange={list.reload} />
          ))}
        </ul>
      </Section>
    </>
  );
}
