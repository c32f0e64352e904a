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

export const OPERATOR_GUARD = contractTag({
  name: 'guard',
  description:
    'Limits across the whole fleet: the group’s own daily limit and hourly cap over all its agents.',
  schemas: { GroupLimitsRequest, GroupLimitsResponse },
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
  },
});

export type GroupLimitsRequest = Shape<typeof GroupLimitsRequest>;
