/**
 * A group at a glance: what a person checks first, each a link to the page where it is acted on.
 * Spent in the last 24 hours against the agents' daily limits; what waits (held spends, proposals to
 * sign); what fails (webhooks, spends refused in the last hour, the guard's rules that tripped in the
 * last 24 hours); entries that expire soon; agents by
 * status (and how many are frozen); the agents closest to their daily limit; spend over time; the
 * events as they happen. The group's kill switch is in its frame (frame.tsx), above the tabs.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { groupHref } from '../route';
import { Address, Failure, Gauge, Loading, Section, Tile, useLoad, useNow } from '../ui';
import { countdown, sumAmounts } from '../words';
import { attentionOf, REFUSED_COUNTED } from './attention';
import { GroupFrame, wordingOf, type GroupData } from './frame';
import { LiveEvents } from './live';
import { SpendChart } from './spend';

const share = (used: string, limit: string) => (Number(limit) > 0 ? Number(used) / Number(limit) : 0);

function Glance({ d }: { d: GroupData }) {
  const now = useNow(30_000);
  const attention = useLoad(() => attentionOf(d.id, d.view), [d.id, d.view]);
  const a = attention.data;
  const agents = d.view.agents;
  const active = agents.filter((x) => x.status === 'active');
  const count = (status: string) => agents.filter((x) => x.status === status).length;
  const frozen = agents.filter((x) => x.frozen !== null).length;
  // What every agent spent (a revoked one's spends happened too), against the limits still in force.
  const spent = sumAmounts(agents.map((x) => d.usage.get(x.agent_wallet_pda)?.spent_today ?? '0'));
  const limit = sumAmounts(active.map((x) => x.limits.daily_limit));
  const hourAgo = new Date(now - 3_600_000).toISOString();
  return (
    <section class="card" aria-label="At a glance">
      <h2>At a glance</h2>
      <div class="tiles">
        <Tile
          title="Spent in the last 24 hours"
          value={`${spent} ${d.base}`}
          href={groupHref(d.id, 'agents', { sort: 'use', dir: 'desc' })}
          tone={share(spent, limit) >= 0.8 ? 'warn' : 'muted'}
        >
          {active.length > 0 ? (
            <>
              <Gauge label="The active agents’ daily limits" used={spent} limit={limit} unit={d.base} />
              of the {active.length} active{' '}
              {active.length === 1 ? 'agent’s daily limit' : 'agents’ daily limits'}
            </>
          ) : (
            'no active agent: nothing more can be spent'
          )}
        </Tile>
        <Tile
          title="Waiting for you"
          value={a ? `${a.held} held ${a.held === 1 ? 'spend' : 'spends'}` : '…'}
          href={groupHref(d.id, 'inbox')}
          tone={a && a.held > 0 ? 'warn' : 'muted'}
        >
          {a && a.held > 0 ? 'approve or reject them in the inbox' : 'nothing to decide'}
        </Tile>
        {d.admin && (
          <Tile
            title="Proposals to sign"
            value={a ? `${a.toSign} ${a.toSign === 1 ? 'proposal' : 'proposals'}` : '…'}
            href={groupHref(d.id, 'inbox')}
            tone={a && a.toSign > 0 ? 'warn' : 'muted'}
          >
            {a && a.toSign > 0
              ? 'changes other admins proposed: sign or cancel them in the inbox'
              : 'no proposal waits for your signature'}
          </Tile>
        )}
        <Tile
          title="Failing webhooks"
          value={a ? String(a.failing.length) : '…'}
          href={groupHref(d.id, 'webhooks')}
          tone={a && a.failing.length > 0 ? 'bad' : 'muted'}
        >
          {a && a.failing.length > 0
            ? a.failing.map((f) => `${new URL(f.subscription.url).host}: ${f.health.text}`).join('; ')
            : 'every endpoint takes its deliveries'}
        </Tile>
        <Tile
          title="Refused in the last hour"
          value={a ? `${a.refused}${a.refusedMore ? '+' : ''}` : '…'}
          href={groupHref(d.id, 'log', { type: 'intent.blocked', from: hourAgo })}
          tone={a && a.refused > 0 ? 'bad' : 'muted'}
        >
          {a && a.refused >= REFUSED_COUNTED
            ? 'spends the policy refused (and more)'
            : 'spends the policy refused'}
        </Tile>
        <Tile
          title="Guard tripped, last 24 hours"
          value={a ? `${a.tripped}${a.tripped >= REFUSED_COUNTED ? '+' : ''}` : '…'}
          href={groupHref(d.id, 'guard')}
          tone={a && a.tripped > 0 ? 'bad' : 'muted'}
        >
          {a && a.tripped > 0
            ? 'spends the guard’s rules held, or agents they froze'
            : 'no rule of the guard tripped'}
        </Tile>
        <Tile
          title="Expiring soon"
          value={a ? `${a.expiring.length} ${a.expiring.length === 1 ? 'entry' : 'entries'}` : '…'}
          href={groupHref(d.id, 'allow-list', { expiry: 'soon' })}
          tone={a && a.expiring.length > 0 ? 'warn' : 'muted'}
        >
          {a && a.expiring.length > 0
            ? a.expiring
                .slice(0, 3)
                .map(
                  (e) =>
                    `${e.label ?? d.names[e.address] ?? 'an entry'}: ${countdown(e.ttl_expires_at!, now)}`,
                )
                .join('; ')
            : 'no allow-list entry near its end'}
        </Tile>
      </div>
      <h3>Agents by status</h3>
      <div class="tiles small">
        {(['active', 'invited', 'revoked'] as const).map((status) => (
          <Tile
            key={status}
            title={status}
            value={String(count(status))}
            href={groupHref(d.id, 'agents', { status })}
            tone={status === 'active' ? 'good' : status === 'revoked' ? 'muted' : 'info'}
          />
        ))}
        {frozen > 0 && (
          <Tile
            title="frozen"
            value={String(frozen)}
            href={groupHref(d.id, 'agents', { status: 'frozen' })}
            tone="bad"
          />
        )}
      </div>
      {attention.loading && <Loading what="what waits and what fails" />}
      <Failure error={attention.error} />
    </section>
  );
}

/** The active agents that used the most of their daily limit. */
function Closest({ d }: { d: GroupData }) {
  const ranked = d.view.agents
    .filter((x) => x.status === 'active')
    .map((x) => ({ x, used: d.usage.get(x.agent_wallet_pda)?.spent_today ?? '0' }))
    .sort((p, q) => share(q.used, q.x.limits.daily_limit) - share(p.used, p.x.limits.daily_limit))
    .slice(0, 5);
  if (ranked.length === 0) return null;
  return (
    <Section title="Closest to their daily limit">
      <ul class="plain">
        {ranked.map(({ x, used }) => {
          const name = x.label ?? x.agent_wallet_pda;
          return (
            <li key={x.agent_wallet_pda} class="row">
              <Address id={x.agent_wallet_pda} names={d.names} />
              <Gauge
                caption="last 24 hours"
                label={`${name} daily`}
                used={used}
                limit={x.limits.daily_limit}
                unit={d.base}
              />
              <a href={groupHref(d.id, 'agents', { q: x.agent_wallet_pda })}>Manage {x.label ?? 'agent'}</a>
            </li>
          );
        })}
      </ul>
    </Section>
  );
}

function Overview({ d }: { d: GroupData }) {
  const [refresh, setRefresh] = useState(0);
  // Events come in bursts (a spend is several): read the group again once a burst is over.
  const later = useRef<ReturnType<typeof setTimeout>>();
  const onEvent = () => {
    clearTimeout(later.current);
    later.current = setTimeout(() => {
      d.reload();
      setRefresh((n) => n + 1);
    }, 250);
  };
  useEffect(() => () => clearTimeout(later.current), []);
  const l = d.view.default_limits;
  return (
    <>
      <p>
        Defaults for new agents: {l.per_tx_limit} {d.base} a transaction, {l.daily_limit} {d.base} a day,{' '}
        {l.hourly_tx_cap} transactions an hour.
      </p>
      <Glance d={d} />
      <Closest d={d} />
      <SpendChart group={d.id} refresh={refresh} names={d.names} base={d.base} />
      <LiveEvents group={d.id} wording={wordingOf(d)} onEvent={onEvent} />
    </>
  );
}

export const OverviewPage = ({ group }: { group: string }) => (
  <GroupFrame group={group} page="overview">
    {(d) => <Overview d={d} />}
  </GroupFrame>
);
