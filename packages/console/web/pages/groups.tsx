/** The operator's groups (GET /orchestrator/groups) and a form to create one with its default limits. */
import { api, ok } from '../api';
import { Failure, Section, Short, useAction, useLoad } from '../ui';

export function Groups() {
  const groups = useLoad(() => ok(api.GET('/orchestrator/groups')));
  const create = useAction();
  const submit = create.submit(
    (f) =>
      api.POST('/orchestrator/groups', {
        body: {
          per_tx_limit: f.per_tx_limit!,
          daily_limit: f.daily_limit!,
          hourly_tx_cap: Number(f.hourly_tx_cap),
        },
      }),
    (created) => void (location.hash = `#/groups/${encodeURIComponent(created.group_config_pda)}`),
  );
  return (
    <>
      <h1>Groups</h1>
      <Section title="Your groups">
        <Failure error={groups.error} />
        {groups.data && groups.data.groups.length === 0 && <p>No group yet: create one below.</p>}
        {groups.data && groups.data.groups.length > 0 && (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Created</th>
                  <th scope="col">Agents</th>
                  <th scope="col">Allow-list</th>
                  <th scope="col">Per tx / daily / hourly</th>
                </tr>
              </thead>
              <tbody>
                {groups.data.groups.map((g) => (
                  <tr key={g.group_config_pda}>
                    <td>
                      <a href={`#/groups/${encodeURIComponent(g.group_config_pda)}`}>
                        <Short id={g.group_config_pda} />
                      </a>
                    </td>
                    <td>{new Date(g.created_at).toLocaleString()}</td>
                    <td>{g.agents}</td>
                    <td>{g.whitelist_entries}</td>
                    <td>
                      {g.default_limits.per_tx_limit} / {g.default_limits.daily_limit} /{' '}
                      {g.default_limits.hourly_tx_cap} tx
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Section title="Create a group">
        <form onSubmit={submit} class="row">
          <label>
            Per-transaction limit
            <input name="per_tx_limit" inputMode="decimal" required defaultValue="100" />
          </label>
          <label>
            Daily limit
            <input name="daily_limit" inputMode="decimal" required defaultValue="1000" />
          </label>
          <label>
            Transactions an hour
            <input name="hourly_tx_cap" type="number" min="0" required defaultValue="60" />
          </label>
          <button type="submit" disabled={create.busy}>
            Create group
          </button>
        </form>
        <Failure error={create.error} />
      </Section>
    </>
  );
}
