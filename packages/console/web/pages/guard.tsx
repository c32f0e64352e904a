/**
 * The guard (docs/guard.md): the group's own limits over all its agents, read back with a gauge each
 * (what the windows hold against the limit), and its rules in force, each changed from what is in
 * force; then what tripped recently (the log's `guard.tripped`, each with its spend's story). Setting
 * or lowering a limit, adding or tightening a rule, applies at once; lifting, raising, removing or
 * loosening is a proposal, signed here with the signed-in wallet (enacted) and said as one. A field
 * the service refuses is said next to it (its `details`: `/rules/0/factor` is the factor of the first
 * rule sent). Approvers and viewers read them; only admins see the forms.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { describeEvent, groupLimitsWords, ruleName, ruleWords, type GuardRuleData } from '../describe';
import { groupHref } from '../route';
import { enacted } from '../signin';
import {
  Address,
  Failure,
  Field,
  FormBox,
  Gauge,
  Loading,
  Section,
  Table,
  useForm,
  useLoad,
  type Answer,
  type Form,
} from '../ui';
import { clock, sumAmounts } from '../words';
import { wholeLog } from './attention';
import { GroupFrame, useReloadOn, wordingOf, type GroupData } from './frame';
import { StoryDialog } from './log';

type Limits = Schemas['GroupLimitsResponse'];
type Rule = Schemas['GuardRule'];
type Kind = Rule['kind'];
type Proposal = Schemas['Proposal'];
type ErrorBody = Schemas['ErrorBody'];

/** What a change that was a proposal says, once the signed-in admin's signature made it. */
const madeByProposal = (p: Proposal, what: string) =>
  `${what} widens what the group’s agents may do, so it was a proposal (${p.proposal_id}): your signature made it (${p.signatures.length} of ${p.signatures_required}), and it is in force.`;

/** Where a change proposed and waiting for other admins' signatures is followed: the inbox's proposals. */
const InboxLink = ({ d }: { d: GroupData }) => (
  <p>
    <a href={groupHref(d.id, 'inbox')}>The proposals to sign, in the Inbox</a>
  </p>
);

// ---- the group's own limits ----

const LIMIT_FIELDS = {
  daily_limit: { label: 'Group daily limit', kind: 'amount' },
  hourly_tx_cap: { label: 'Group operations an hour', kind: 'integer', min: 0, max: 1_000_000 },
} as const;

/** The same amount, however it is written ("500" and "500.0"). */
const sameAmount = (a: string | null, b: string | null) =>
  a === null || b === null ? a === b : sumAmounts([a]) === sumAmounts([b]);

function LimitsInForce({ l, d }: { l: Limits; d: GroupData }) {
  return (
    <div class="gauges" data-testid="group-limits-in-force">
      <div>
        <p>
          <strong>Daily limit:</strong>{' '}
          {l.daily_limit === null
            ? 'none over the group (each agent’s own daily limit only).'
            : `${l.daily_limit} ${d.base} over all the agents together, in any 24 hours.`}
        </p>
        {l.daily_limit !== null && (
          <Gauge
            label="group daily"
            caption="spent, last 24 h"
            used={l.spent_last_24h ?? '0'}
            limit={l.daily_limit}
            unit={d.base}
          />
        )}
      </div>
      <div>
        <p>
          <strong>Hourly cap:</strong>{' '}
          {l.hourly_tx_cap === null
            ? 'none over the group (each agent’s own cap only).'
            : `${l.hourly_tx_cap} operations of all the agents together, in any 60 minutes.`}
        </p>
        {l.hourly_tx_cap !== null && (
          <Gauge
            label="group hourly"
            caption="operations, last 60 min"
            used={String(l.operations_last_60m ?? 0)}
            limit={String(l.hourly_tx_cap)}
            unit="operations"
          />
        )}
      </div>
    </div>
  );
}

function GroupLimits({ d, changes }: { d: GroupData; changes: number }) {
  const path = { params: { path: { group: d.id } } };
  const inForce = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/limits', path)), [d.id, changes]);
  const form = useForm(LIMIT_FIELDS);
  const [said, setSaid] = useState<string>();
  const asked = useRef<Partial<Pick<Limits, 'daily_limit' | 'hourly_tx_cap'>>>();
  const proposal = useRef<Proposal>();
  const l = inForce.data;
  // A change proposed and waiting: once it is in force (the other admins signed), it waits no more.
  useEffect(() => {
    const a = asked.current;
    const daily = a?.daily_limit === undefined || (l && sameAmount(a.daily_limit, l.daily_limit));
    const hourly = a?.hourly_tx_cap === undefined || a.hourly_tx_cap === l?.hourly_tx_cap;
    if (a && l && daily && hourly) form.clearProposed();
  }, [l]);
  return (
    <Section title="Group limits">
      <p>
        Limits over all the group’s agents together, on top of each agent’s own: what they may spend in any 24
        hours (in {d.base}, every spend but a withdrawal) and how many operations they may make in any 60
        minutes. Setting or lowering one applies at once; lifting or raising one is a proposal the group’s
        admins sign. The windows count from the moment the group has limits.
      </p>
      {inForce.loading && <Loading what="the group’s limits" />}
      {l && <LimitsInForce l={l} d={d} />}
      {!l && inForce.error !== undefined && <Failure error={inForce.error} />}
      {l && d.admin && (
        <FormBox
          // Filled from the limits in force: new ones, set or read again, fill it afresh.
          key={`${l.daily_limit}/${l.hourly_tx_cap}`}
          form={form}
          label="Set the group’s limits"
          onSubmit={(e) => {
            setSaid(undefined);
            proposal.current = undefined;
            void form.submit(
              (f) => {
                const daily = f.daily_limit ? f.daily_limit : null;
                const hourly = f.hourly_tx_cap ? Number(f.hourly_tx_cap) : null;
                const body = {
                  ...(!sameAmount(daily, l.daily_limit) && { daily_limit: daily }),
                  ...(hourly !== l.hourly_tx_cap && { hourly_tx_cap: hourly }),
                };
                if (Object.keys(body).length === 0)
                  throw new Error('Nothing to change: the form holds the limits in force.');
                asked.current = body;
                return enacted(api.PUT('/orchestrator/groups/{group}/limits', { ...path, body })).then(
                  (a) => {
                    proposal.current = a.proposal;
                    return a;
                  },
                );
              },
              (answer) => {
                const now = `In force: ${groupLimitsWords(answer, d.base)}.`;
                setSaid(
                  proposal.current
                    ? `${madeByProposal(proposal.current, 'This change')} ${now}`
                    : `Set at once (it narrows what the agents may spend). ${now}`,
                );
                inForce.reload();
              },
              { reset: false },
            )(e);
          }}
        >
          <Field
            form={form}
            name="daily_limit"
            defaultValue={l.daily_limit ?? ''}
            hint={`${d.base}; empty: none`}
          />
          <Field
            form={form}
            name="hourly_tx_cap"
            defaultValue={l.hourly_tx_cap === null ? '' : String(l.hourly_tx_cap)}
            hint="empty: none"
          />
          <button type="submit" disabled={form.busy}>
            Save limits
          </button>
        </FormBox>
      )}
      {form.proposed && <InboxLink d={d} />}
      {said && (
        <p role="status" class="notice" data-testid="group-limits-saved">
          {said}
        </p>
      )}
      {l && !d.admin && d.role !== undefined && <p class="muted">Only the group’s admins change them.</p>}
    </Section>
  );
}

// ---- the guard's rules ----

/** The kinds, in the order the form lists them. */
const KINDS: readonly Kind[] = [
  'velocity',
  'burst',
  'new_counterparty',
  'new_token',
  'refusals',
  'quiet_hours',
];

const on = (kind: Kind) => (values: Record<string, string>) => values[`${kind}_on`] === 'on';
const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
const time = (v: string) =>
  v && !HHMM.test(v) ? 'must be a time like 22:00 (HH:MM, 00:00 to 23:59)' : undefined;

const RULE_FIELDS = {
  velocity_factor: {
    label: 'Factor',
    kind: 'number',
    required: true,
    min: 1,
    max: 1000,
    when: on('velocity'),
  },
  velocity_min_count: {
    label: 'At least (spends in the hour)',
    kind: 'integer',
    required: true,
    min: 1,
    max: 1000,
    when: on('velocity'),
  },
  velocity_action: { label: 'Then', required: true, when: on('velocity') },
  burst_window_minutes: {
    label: 'Within (minutes)',
    kind: 'integer',
    required: true,
    min: 1,
    max: 1440,
    when: on('burst'),
  },
  burst_fraction: {
    label: 'Share of its daily limit',
    kind: 'number',
    required: true,
    positive: true,
    max: 1,
    when: on('burst'),
  },
  burst_action: { label: 'Then', required: true, when: on('burst') },
  new_counterparty_action: { label: 'Then', required: true, when: on('new_counterparty') },
  new_token_action: { label: 'Then', required: true, when: on('new_token') },
  refusals_count: {
    label: 'Refused spends',
    kind: 'integer',
    required: true,
    min: 1,
    max: 1000,
    when: on('refusals'),
  },
  refusals_window_minutes: {
    label: 'Within (minutes)',
    kind: 'integer',
    required: true,
    min: 1,
    max: 1440,
    when: on('refusals'),
  },
  quiet_hours_from: { label: 'From', required: true, check: time, when: on('quiet_hours') },
  quiet_hours_to: { label: 'Until', required: true, check: time, when: on('quiet_hours') },
  quiet_hours_time_zone: { label: 'Time zone', required: true, when: on('quiet_hours') },
  quiet_hours_action: { label: 'Then', required: true, when: on('quiet_hours') },
} as const;
type RuleField = keyof typeof RULE_FIELDS;

/** The form's field of a rule's parameter as the API names it (`/rules/0/window_seconds` of a burst). */
const FIELD_OF: Record<Kind, Record<string, RuleField>> = {
  velocity: { factor: 'velocity_factor', min_count: 'velocity_min_count', action: 'velocity_action' },
  burst: { window_seconds: 'burst_window_minutes', fraction: 'burst_fraction', action: 'burst_action' },
  new_counterparty: { action: 'new_counterparty_action' },
  new_token: { action: 'new_token_action' },
  refusals: { count: 'refusals_count', window_seconds: 'refusals_window_minutes' },
  quiet_hours: {
    from: 'quiet_hours_from',
    to: 'quiet_hours_to',
    time_zone: 'quiet_hours_time_zone',
    action: 'quiet_hours_action',
  },
};

/**
 * A refusal's details as the form's fields: `/rules/<i>/<field>` names the i-th rule sent, so it is
 * said next to that rule's field (what names none stays as it came).
 */
function byRuleField(error: unknown, sent: readonly Rule[]): unknown {
  const body = error as Partial<ErrorBody> | undefined;
  if (!body?.details) return error;
  return {
    ...body,
    details: body.details.map((x) => {
      const m = /^\/rules\/(\d+)\/(\w+)$/.exec(x.path);
      const rule = m ? sent[Number(m[1])] : undefined;
      const field = rule && FIELD_OF[rule.kind][m![2]!];
      return field ? { ...x, path: `/${field}` } : x;
    }),
  };
}

/** The form's values as the list of rules it sends, in the form's order. */
function rulesOf(f: Record<string, string>): Rule[] {
  const action = (kind: Kind) => (f[`${kind}_action`] === 'freeze_agent' ? 'freeze_agent' : 'hold');
  const rules: Rule[] = [];
  for (const kind of KINDS) {
    if (f[`${kind}_on`] !== 'on') continue;
    switch (kind) {
      case 'velocity':
        rules.push({
          kind,
          factor: Number(f.velocity_factor),
          min_count: Number(f.velocity_min_count),
          action: action(kind),
        });
        break;
      case 'burst':
        rules.push({
          kind,
          window_seconds: Number(f.burst_window_minutes) * 60,
          fraction: f.burst_fraction!,
          action: action(kind),
        });
        break;
      case 'refusals':
        rules.push({
          kind,
          count: Number(f.refusals_count),
          window_seconds: Number(f.refusals_window_minutes) * 60,
          action: 'freeze_agent',
        });
        break;
      case 'quiet_hours':
        rules.push({
          kind,
          from: f.quiet_hours_from!,
          to: f.quiet_hours_to!,
          time_zone: f.quiet_hours_time_zone!,
          action: action(kind),
        });
        break;
      default:
        rules.push({ kind, action: action(kind) });
    }
  }
  return rules;
}

/** A list of rules as one text, whatever their order and however a number is written: to compare. */
const canonical = (rules: readonly Rule[]) =>
  JSON.stringify(
    [...rules]
      .sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind))
      .map((r) => (r.kind === 'burst' ? { ...r, fraction: String(Number(r.fraction)) } : r)),
  );

/** What a kind's fields start from: the rule in force, or a starting point for one not set. */
const STARTS = {
  velocity: { factor: 5, min_count: 10 },
  burst: { window_seconds: 3600, fraction: '0.5' },
  refusals: { count: 3, window_seconds: 3600 },
  quiet_hours: { from: '22:00', to: '06:00', time_zone: 'UTC' },
};

const localZone = () => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
};

/** The select of a rule's action (a rule of `refusals` only freezes: no choice). */
function ActionSelect({ form, kind, value }: { form: Form<RuleField>; kind: Kind; value: string }) {
  const id = useId();
  const name = `${kind}_action` as RuleField;
  const error = form.errors[name];
  return (
    <div class={`field${error ? ' invalid' : ''}`}>
      <label for={id}>Then</label>
      <select
        id={id}
        name={name}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        <option value="hold" selected={value !== 'freeze_agent'}>
          hold the spend for approval
        </option>
        <option value="freeze_agent" selected={value === 'freeze_agent'}>
          refuse it and freeze the agent
        </option>
      </select>
      {error && (
        <span class="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** What each kind watches, said above its fields. */
const WATCHES: Record<Kind, string> = {
  velocity:
    'An agent that suddenly spends more often than usual: its spends in the last hour (this one included) against its usual hourly count over the past 7 days.',
  burst:
    'An agent that spends much of its daily limit at once: the value it spent within the window (this spend included) against its daily limit.',
  new_counterparty:
    'An agent’s first spend to a recipient or protocol of the allow-list, until one is confirmed.',
  new_token: 'An agent’s first spend of a token, until one is confirmed.',
  refusals:
    'An agent whose spends keep being refused by the policy (probing, or an injected prompt): the refusal that reaches the count freezes it.',
  quiet_hours: 'Any spend in the hours when nobody should be spending (across midnight when From is later).',
};

function RulesForm({
  d,
  rules,
  onSaved,
}: {
  d: GroupData;
  rules: readonly Rule[];
  onSaved: (said: string) => void;
}) {
  const form = useForm(RULE_FIELDS);
  const byKind = new Map(rules.map((r) => [r.kind, r as GuardRuleData]));
  const [ticked, setTicked] = useState<Record<string, boolean>>(() =>
    Object.fromEntries(KINDS.map((k) => [k, byKind.has(k)])),
  );
  const proposal = useRef<Proposal>();
  const asked = useRef<string>();
  // A change proposed and waiting: once it is in force (the other admins signed), it waits no more.
  useEffect(() => {
    if (asked.current !== undefined && asked.current === canonical(rules)) form.clearProposed();
  }, [rules]);
  const param = (kind: Kind, key: string): string => {
    const value = byKind.get(kind)?.[key] ?? (STARTS as Record<string, Record<string, unknown>>)[kind]?.[key];
    if (key === 'window_seconds') return String(Number(value) / 60);
    if (key === 'time_zone' && !byKind.has(kind)) return localZone();
    return String(value ?? '');
  };
  const actionOf = (kind: Kind) => String(byKind.get(kind)?.action ?? 'hold');
  const path = { params: { path: { group: d.id } } };
  const fieldsOf = (kind: Kind) => {
    switch (kind) {
      case 'velocity':
        return (
          <>
            <Field
              form={form}
              name="velocity_factor"
              defaultValue={param(kind, 'factor')}
              hint="× its usual; 1 to 1,000"
            />
            <Field
              form={form}
              name="velocity_min_count"
              defaultValue={param(kind, 'min_count')}
              hint="1 to 1,000"
            />
            <ActionSelect form={form} kind={kind} value={actionOf(kind)} />
          </>
        );
      case 'burst':
        return (
          <>
            <Field
              form={form}
              name="burst_window_minutes"
              defaultValue={param(kind, 'window_seconds')}
              hint="1 to 1,440"
            />
            <Field
              form={form}
              name="burst_fraction"
              defaultValue={param(kind, 'fraction')}
              hint="above 0, at most 1 (0.5: half)"
            />
            <ActionSelect form={form} kind={kind} value={actionOf(kind)} />
          </>
        );
      case 'refusals':
        return (
          <>
            <Field form={form} name="refusals_count" defaultValue={param(kind, 'count')} hint="1 to 1,000" />
            <Field
              form={form}
              name="refusals_window_minutes"
              defaultValue={param(kind, 'window_seconds')}
              hint="1 to 1,440"
            />
            <p class="field-line muted">Then: refuse the spend and freeze the agent (its only action).</p>
          </>
        );
      case 'quiet_hours':
        return (
          <>
            <Field form={form} name="quiet_hours_from" defaultValue={param(kind, 'from')} hint="HH:MM" />
            <Field form={form} name="quiet_hours_to" defaultValue={param(kind, 'to')} hint="HH:MM" />
            <Field
              form={form}
              name="quiet_hours_time_zone"
              defaultValue={param(kind, 'time_zone')}
              hint="IANA, like Europe/Paris or UTC"
            />
            <ActionSelect form={form} kind={kind} value={actionOf(kind)} />
          </>
        );
      default:
        return <ActionSelect form={form} kind={kind} value={actionOf(kind)} />;
    }
  };
  return (
    <>
      <FormBox
        form={form}
        label="The guard’s rules"
        class=""
        onSubmit={(e) => {
          proposal.current = undefined;
          void form.submit(
            (f): Answer<Schemas['GuardResponse']> => {
              const sent = rulesOf(f);
              if (canonical(sent) === canonical(rules))
                throw new Error('Nothing to change: the form holds the rules in force.');
              asked.current = canonical(sent);
              return enacted(
                api.PUT('/orchestrator/groups/{group}/guard', { ...path, body: { rules: sent } }),
              ).then((a) => {
                proposal.current = a.proposal;
                return a.error === undefined ? a : { ...a, error: byRuleField(a.error, sent) };
              });
            },
            (answer) =>
              onSaved(
                proposal.current
                  ? madeByProposal(proposal.current, 'Removing or loosening a rule')
                  : `Saved at once (it adds or tightens rules): ${answer.rules.length} rule${answer.rules.length === 1 ? '' : 's'} in force.`,
              ),
            { reset: false },
          )(e);
        }}
      >
        {KINDS.map((kind) => (
          <fieldset key={kind} disabled={!ticked[kind]} data-testid={`rule-${kind}`}>
            <legend>
              <label class="check">
                <input
                  type="checkbox"
                  name={`${kind}_on`}
                  checked={ticked[kind]}
                  onChange={(e) =>
                    setTicked({ ...ticked, [kind]: (e.currentTarget as HTMLInputElement).checked })
                  }
                />{' '}
                {ruleName(kind)[0]!.toUpperCase() + ruleName(kind).slice(1)}
              </label>
            </legend>
            <p class="muted rule-watches">{WATCHES[kind]}</p>
            {fieldsOf(kind)}
          </fieldset>
        ))}
        <p class="muted">
          Saving replaces the whole list. Adding a rule or tightening one (a lower factor or count, a smaller
          share, a longer window, freezing where it held) applies at once; removing or loosening any makes the
          whole change a proposal the group’s admins sign.
        </p>
        <div>
          <button type="submit" disabled={form.busy}>
            Save the rules
          </button>
        </div>
      </FormBox>
      {form.proposed && <InboxLink d={d} />}
    </>
  );
}

function GuardRules({ d, changes }: { d: GroupData; changes: number }) {
  const path = { params: { path: { group: d.id } } };
  const inForce = useLoad(() => ok(api.GET('/orchestrator/groups/{group}/guard', path)), [d.id, changes]);
  const [said, setSaid] = useState<string>();
  const rules = inForce.data?.rules;
  return (
    <Section title="Guard rules">
      <p>
        Rules that notice an agent behaving unlike itself before a person would: a spend that trips one is
        held for approval (the Inbox names the rule) or refused, and the agent frozen (lifting the freeze is a
        proposal). One rule of each kind.
      </p>
      {inForce.loading && <Loading what="the guard’s rules" />}
      {!rules && inForce.error !== undefined && <Failure error={inForce.error} />}
      {rules && (
        <div data-testid="guard-rules-in-force">
          <p>
            <strong>In force:</strong>{' '}
            {rules.length === 0 ? 'no rule: the guard holds nothing and freezes no agent.' : ''}
          </p>
          {rules.length > 0 && (
            <ul>
              {rules.map((r) => (
                <li key={r.kind} data-testid="guard-rule">
                  {ruleWords(r as GuardRuleData)}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {rules && d.admin && (
        <RulesForm
          // Filled from the rules in force: new ones, saved or read again, fill it afresh.
          key={JSON.stringify(rules)}
          d={d}
          rules={rules}
          onSaved={(text) => {
            setSaid(text);
            inForce.reload();
          }}
        />
      )}
      {said && (
        <p role="status" class="notice" data-testid="guard-rules-saved">
          {said}
        </p>
      )}
      {rules && !d.admin && d.role !== undefined && <p class="muted">Only the group’s admins change them.</p>}
    </Section>
  );
}

// ---- what tripped recently ----

type LogEvent = Schemas['AuditEventView'];
interface Trip {
  agent_id: string;
  intent_id: string;
  rule: string;
  action: string;
  words: string;
  at: number;
}

/** How far back "recently" reads, and how many trips it shows at most (newest first). */
const RECENT_DAYS = 7;
const RECENT_SHOWN = 50;

function Tripped({ d, changes }: { d: GroupData; changes: number }) {
  const trips = useLoad(
    () =>
      wholeLog(d.id, {
        type: 'guard.tripped',
        from: new Date(Date.now() - RECENT_DAYS * 86_400_000).toISOString(),
      }).then((events: LogEvent[]) => events.reverse()),
    [d.id, changes],
  );
  const [story, setStory] = useState<string>();
  const w = wordingOf(d);
  const list = trips.data;
  return (
    <Section title="Tripped recently">
      <p class="muted">
        The rules that tripped in the last {RECENT_DAYS} days, newest first; every one is in the{' '}
        <a href={groupHref(d.id, 'log', { type: 'guard.tripped' })}>log</a>.
      </p>
      {trips.loading && <Loading what="what tripped" />}
      <Failure error={trips.error} />
      {list?.length === 0 && <p>No rule tripped in the last {RECENT_DAYS} days.</p>}
      {list && list.length > 0 && (
        <Table
          label="Rules that tripped, newest first"
          heads={['When', 'Agent', 'Rule', 'What it measured', 'What it did', 'The spend']}
        >
          {list.slice(0, RECENT_SHOWN).map((e) => {
            const t = e.data as Trip;
            return (
              <tr key={e.event_id} data-testid="guard-trip">
                <td>
                  <time dateTime={e.recorded_at}>{clock(e.recorded_at)}</time>
                </td>
                <td>
                  <Address id={t.agent_id} names={d.names} />
                </td>
                <td>{ruleName(t.rule)}</td>
                <td>{t.words}</td>
                <td>{t.action === 'freeze_agent' ? 'froze the agent' : 'held the spend for approval'}</td>
                <td>
                  <button type="button" class="secondary small" onClick={() => setStory(t.intent_id)}>
                    Story <span class="visually-hidden">of {describeEvent(e.type, e.data, w).text}</span>
                  </button>
                </td>
              </tr>
            );
          })}
        </Table>
      )}
      {story && <StoryDialog intent={story} d={d} onClose={() => setStory(undefined)} />}
    </Section>
  );
}

/**
 * The guard's sections, read again when a change of theirs is made or a rule trips (a spend counts);
 * the group too (an agent new since the page opened is named by its label, a frozen one marked).
 */
function Guard({ d }: { d: GroupData }) {
  const [changes, setChanges] = useState(0);
  useReloadOn(d.id, /^(intent\.|agent\.|guard\.tripped$|group\.(limits|guard)_set$)/, () => {
    setChanges((n) => n + 1);
    d.reload();
  });
  return (
    <>
      <GroupLimits d={d} changes={changes} />
      <GuardRules d={d} changes={changes} />
      <Tripped d={d} changes={changes} />
    </>
  );
}

export const GuardPage = ({ group }: { group: string }) => (
  <GroupFrame group={group} page="guard">
    {(d) => <Guard d={d} />}
  </GroupFrame>
);
