/**
 * The guard (design.md "The guard", docs/guard.md): the group's own limits over all its agents. A
 * limit set or lowered applies at once; lifted or raised, it is a proposal the group's admins sign.
 * The rules are shared/src/domain/group-limits.ts, the flow shared/src/application/guard.ts.
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { AmountInput, Count, Identifier, type Shape } from '../schemas';
import { AmountText, MAX_HOURLY_TX_CAP, OWNER, READERS, WRITE_HEADERS } from './common';

export const GroupLimitsRequest = object(
  {
    daily_limit: {
      anyOf: [AmountInput, { type: 'null' }],
      description:
        'What the group’s agents together may spend in any 24 hours, valued in the base token; null lifts it.',
    },
    hourly_tx_cap: {
      anyOf: [{ type: 'integer', format: 'int32', minimum: 0, maximum: MAX_HOURLY_TX_CAP }, { type: 'null' }],
      description:
        'How many operations the group’s agents together may make in any 60 minutes; null lifts it.',
    },
  },
  ['daily_limit', 'hourly_tx_cap'],
);

export const GroupLimitsResponse = object({
  group_config_pda: Identifier,
  daily_limit: { anyOf: [AmountText, { type: 'null' }], description: 'null: none.' },
  hourly_tx_cap: { anyOf: [Count, { type: 'null' }], description: 'null: none.' },
  spent_last_24h: {
    anyOf: [AmountText, { type: 'null' }],
    description:
      'What the group’s agents spent (accepted, held or confirmed; not failed) in the last 24 hours since the limits were set; null while the group has none.',
  },
  operations_last_60m: {
    anyOf: [Count, { type: 'null' }],
    description:
      'Their operations in the last 60 minutes, counted the same way; null while the group has none.',
  },
});

// ---- the guard's rules (shared/src/domain/guard.ts) ----

const Action = {
  type: 'string',
  enum: ['hold', 'freeze_agent'],
  description: '`hold`: the spend waits for an approval; `freeze_agent`: it is refused and the agent frozen.',
} as const;
const WindowSeconds = { type: 'integer', format: 'int32', minimum: 60, maximum: 86_400 } as const;
const RuleCount = { type: 'integer', format: 'int32', minimum: 1, maximum: 1000 } as const;
const Hhmm = { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' } as const;

const rule = <const P extends Record<string, object>>(kind: string, description: string, properties: P) =>
  object({ kind: { type: 'string', enum: [kind] }, ...properties, action: Action }, [], { description });

/** One rule as the service keeps and answers it: its kind, its parameters, its action. */
export const GuardRuleSchema = {
  oneOf: [
    rule(
      'velocity',
      'Spends in the last hour (this one included) above `factor` × the agent’s usual hourly count over the past 7 days, and at least `min_count` of them.',
      {
        factor: { type: 'number', minimum: 1, maximum: 1000 },
        min_count: RuleCount,
      },
    ),
    rule(
      'burst',
      'Value spent in the last `window_seconds` (this spend included) strictly above `fraction` of the agent’s daily limit.',
      {
        window_seconds: WindowSeconds,
        fraction: { type: 'string', description: 'A decimal above 0 and at most 1, like "0.5".' },
      },
    ),
    rule(
      'new_counterparty',
      'The agent’s first spend to an allow-list entry (recipients and protocols), until one is confirmed.',
      {},
    ),
    rule('new_token', 'The agent’s first spend of a mint, until one is confirmed.', {}),
    object(
      {
        kind: { type: 'string', enum: ['refusals'] },
        count: RuleCount,
        window_seconds: WindowSeconds,
        action: { type: 'string', enum: ['freeze_agent'] },
      },
      [],
      {
        description:
          '`count` spends of the agent refused by a policy check (a 403) within `window_seconds`: the refusal that reaches it freezes the agent.',
      },
    ),
    rule(
      'quiet_hours',
      'A spend whose local time in `time_zone` lies in [`from`, `to`) (across midnight when `from` is later).',
      {
        from: Hhmm,
        to: Hhmm,
        time_zone: { type: 'string', description: 'An IANA time zone, like "Europe/Paris" or "UTC".' },
      },
    ),
  ],
} as const;

/**
 * A rule as an operator writes it: one shape for every kind (what each kind takes is checked, field by
 * field, by the domain's parser, which names the field at fault), so a mistake gets one clear error
 * rather than one per kind it is not.
 */
const GuardRuleInput = object(
  {
    kind: {
      type: 'string',
      enum: ['velocity', 'burst', 'new_counterparty', 'new_token', 'refusals', 'quiet_hours'],
    },
    action: { type: 'string', enum: ['hold', 'freeze_agent'] },
    factor: {
      anyOf: [{ type: 'number' }, { type: 'string', maxLength: 32 }],
      description: 'velocity: 1 to 1,000, at most 6 decimals.',
    },
    min_count: { ...RuleCount, description: 'velocity: 1 to 1,000.' },
    window_seconds: { ...WindowSeconds, description: 'burst, refusals: 60 to 86,400.' },
    fraction: {
      anyOf: [{ type: 'number' }, { type: 'string', maxLength: 32 }],
      description: 'burst: above 0, at most 1.',
    },
    count: { ...RuleCount, description: 'refusals: 1 to 1,000.' },
    from: { type: 'string', maxLength: 5, description: 'quiet_hours: HH:MM.' },
    to: { type: 'string', maxLength: 5, description: 'quiet_hours: HH:MM.' },
    time_zone: { type: 'string', maxLength: 64, description: 'quiet_hours: an IANA time zone.' },
  },
  ['factor', 'min_count', 'window_seconds', 'fraction', 'count', 'from', 'to', 'time_zone'],
  { description: 'One rule: `kind`, the parameters of that kind (see GuardRule), and `action`.' },
);

export const GuardRequest = object({
  rules: {
    type: 'array',
    maxItems: 6,
    items: GuardRuleInput,
    description: 'The whole list, replacing the one in force; one rule of a kind; `[]` removes every rule.',
  },
});

export const GuardResponse = object({
  group_config_pda: Identifier,
  rules: { type: 'array', items: GuardRuleSchema },
});

/** A rule that tripped: which, what it did, what it measured, in a sentence for people. */
export const GuardTripView = object({
  rule: {
    type: 'string',
    enum: ['velocity', 'burst', 'new_counterparty', 'new_token', 'refusals', 'quiet_hours'],
  },
  action: { type: 'string', enum: ['hold', 'freeze_agent'] },
  figures: {
    type: 'object',
    additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    description:
      'What the rule measured and its parameters, e.g. `{count: 12, usual: "1", factor: 5, min_count: 10}`.',
  },
  words: {
    type: 'string',
    description: 'The same, as a sentence: "12 spends in the last hour, usually 1 an hour: above 5 x usual".',
  },
});

export const OPERATOR_GUARD = contractTag({
  name: 'guard',
  description:
    'Limits across the whole fleet (the group’s own daily limit and hourly cap over all its agents) and the guard’s rules, which hold a spend or freeze an agent that behaves unlike itself.',
  schemas: {
    GroupLimitsRequest,
    GroupLimitsResponse,
    GuardRequest,
    GuardResponse,
    GuardRule: GuardRuleSchema,
    GuardTripView,
  },
  operations: {
    getGroupLimits: {
      method: 'get',
      path: '/orchestrator/groups/{group}/limits',
      tag: 'guard',
      operationId: 'getGroupLimits',
      summary: 'The group’s own limits over all its agents, and what their windows hold now.',
      description:
        'For every member of the group and its auditors. Limits the group never set are null; so is what the windows hold while it has none (a group without limits keeps no count of them).',
      security: READERS,
      response: 'GroupLimitsResponse',
      errors: OWNER,
    },
    setGroupLimits: {
      method: 'put',
      path: '/orchestrator/groups/{group}/limits',
      tag: 'guard',
      operationId: 'setGroupLimits',
      headers: WRITE_HEADERS,
      summary:
        'Limits across the fleet: a rolling 24-hour value limit and a rolling 60-minute operation cap over every agent of the group.',
      description:
        'Admins only. A field left out keeps its limit; null lifts it. Setting or lowering a limit applies at once (`200`); lifting or raising one is `202` with a proposal the group’s admins sign. They are on top of each agent’s own limits and count what those count: the value of every spend but a withdrawal toward the daily limit, every operation toward the cap; a spend past one is `403 group_daily_limit_exceeded` or `403 group_hourly_tx_cap_exceeded`. They count the spends decided from the moment the group has limits: what its agents spent before is not counted.',
      request: 'GroupLimitsRequest',
      response: 'GroupLimitsResponse',
      proposes: true,
      result: 'GroupLimitsResponse',
      errors: [...OWNER, 'invalid_amount', 'conflict'],
    },
    getGuard: {
      method: 'get',
      path: '/orchestrator/groups/{group}/guard',
      tag: 'guard',
      operationId: 'getGuard',
      summary: 'The group’s guard rules in force.',
      description:
        'For every member of the group and its auditors. `rules` is empty while the group has none.',
      security: READERS,
      response: 'GuardResponse',
      errors: OWNER,
    },
    setGuard: {
      method: 'put',
      path: '/orchestrator/groups/{group}/guard',
      tag: 'guard',
      operationId: 'setGuard',
      headers: WRITE_HEADERS,
      summary:
        'The guard’s rules: holds and freezes that trip by themselves on an agent’s behaviour (velocity, burst, a new counterparty or token, refusals, quiet hours).',
      description:
        'Admins only. The list replaces the one in force. Adding rules, or tightening one (a lower factor or count, a smaller fraction, a longer window, `freeze_agent` where it held), applies at once (`200`); removing a rule or loosening any makes the whole change a proposal (`202`) the group’s admins sign. A rule that trips on a spend is a `guard.tripped` event: `hold` holds the spend for approval (`409 approval_required` to the agent; the approval names the rule and its figures), `freeze_agent` refuses it and freezes the agent (`403 agent_frozen`; unfreezing is a proposal). A rule’s bad field is `400 validation_error` naming it (`/rules/0/factor`).',
      request: 'GuardRequest',
      response: 'GuardResponse',
      proposes: true,
      result: 'GuardResponse',
      errors: [...OWNER, 'conflict'],
    },
  },
});

export type GuardRequest = Shape<typeof GuardRequest>;

export type GroupLimitsRequest = Shape<typeof GroupLimitsRequest>;
