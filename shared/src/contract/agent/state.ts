/**
 * The agent contract's state reads (spec/agent-api.md): balances, limits and their headroom, the
 * history; answered from the agent views, with the freshness headers (VIEW_HEADERS).
 */
import { openObject } from '../build';
import { contractTag } from '../openapi';
import { AmountOutput, Count, type Shape } from '../schemas';

const LimitFields = {
  daily_limit: AmountOutput,
  daily_remaining: AmountOutput,
  per_tx_limit: AmountOutput,
  hourly_tx_cap: Count,
  hourly_tx_remaining: Count,
} as const;

export const BalanceResponse = openObject({
  balances: { type: 'object', additionalProperties: AmountOutput },
  ...LimitFields,
});

export const LimitsResponse = openObject({ ...LimitFields, group_id: { type: 'string' } });

export const HistoryQuery = openObject(
  {
    limit: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 100,
      default: 20,
      description: 'How many entries at most.',
    },
  },
  ['limit'],
);

export const HistoryEntry = openObject(
  {
    tx_sig: { type: 'string' },
    action: { type: 'string', enum: ['transfer', 'swap'] },
    amount: AmountOutput,
    timestamp: { type: 'integer', description: 'Unix epoch seconds.' },
    memo: { type: 'string' },
    net_amount: AmountOutput,
    protocol_fee: AmountOutput,
    task_id: { type: 'string' },
    to: { type: 'string' },
    token: { type: 'string' },
  },
  ['memo', 'net_amount', 'protocol_fee', 'task_id', 'to', 'token'],
);

export const HistoryResponse = openObject({ transactions: { type: 'array', items: HistoryEntry } });

export const AGENT_STATE = contractTag({
  name: 'state',
  description: 'Balance, limits, history.',
  schemas: { BalanceResponse, LimitsResponse, HistoryQuery, HistoryEntry, HistoryResponse },
  operations: {
    getBalance: {
      method: 'get',
      path: '/balance',
      tag: 'state',
      operationId: 'getBalance',
      summary: 'Token balances and the limit counters.',
      description:
        'The agent’s balance of every registry token, in human units, with its limits and what remains of them now (the daily limit over the last 24 hours, the hourly cap over the last 60 minutes). Read from the agent views; `X-Data-Stale` says whether they include the agent’s own last write.',
      response: 'BalanceResponse',
    },
    getLimits: {
      method: 'get',
      path: '/limits',
      tag: 'state',
      operationId: 'getLimits',
      summary: 'Limits, remaining headroom and the group.',
      description:
        'The agent’s limits, what remains of the daily limit and the hourly cap now, and its group. Read from the agent views, with the freshness headers.',
      response: 'LimitsResponse',
    },
    getHistory: {
      method: 'get',
      path: '/history',
      tag: 'state',
      operationId: 'getHistory',
      summary: 'The most recent confirmed intents of the last 24 hours, newest first.',
      description:
        'The agent’s confirmed spends of the last 24 hours (transfers, x402 payments as transfers to their payee, and swaps; deposits and withdrawals are in the variant’s history), newest first, at most `limit` (20 by default, 1 to 100). Refusals and operations that did not land are not listed (the webhooks and the operator’s audit log have them). Read from the agent views, with the freshness headers.',
      query: 'HistoryQuery',
      response: 'HistoryResponse',
    },
  },
});

export type BalanceResponse = Shape<typeof BalanceResponse>;
export type LimitsResponse = Shape<typeof LimitsResponse>;
export type HistoryQuery = Shape<typeof HistoryQuery>;
export type HistoryEntry = Shape<typeof HistoryEntry>;
export type HistoryResponse = Shape<typeof HistoryResponse>;
