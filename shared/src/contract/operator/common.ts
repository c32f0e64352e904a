/**
 * What the tags of the operator surface share: who may call a route (its error lists), the headers of
 * the writes that wait for the agent views, the readers' security, and the building blocks of the
 * schemas (limits as asked and as answered, labels, amounts as exact text). Every number has bounds
 * and every string a length, so nothing out of range reaches the domain or the log; the bodies take
 * no unknown properties.
 */
import type { ErrorCode } from '../../errors';
import { object } from '../build';
import { REFERENCE_ERRORS, VIEW_HEADERS } from '../openapi';
import { AmountInput, Count } from '../schemas';

/** Every route: a malformed request, too many requests, an unexpected failure, a dependency down. */
export const ANY = REFERENCE_ERRORS;
/** Routes that take the operator's token: missing or bad (too many failures from one address: 429). */
export const SIGNED_IN: readonly ErrorCode[] = [...ANY, 'unauthorized'];
/** Routes on a group (or its agent, entry, subscription): someone else's, or none. */
export const OWNER: readonly ErrorCode[] = [...SIGNED_IN, 'forbidden', 'not_found'];

/** The writes that answer once the agent views include them (or say they do not). */
export const WRITE_HEADERS = {
  ...VIEW_HEADERS,
  'X-Data-Stale': {
    ...VIEW_HEADERS['X-Data-Stale'],
    description:
      '`false`: the agent views include this write (agents read it back at once). `true`: they did not within VIEW_WAIT_MS (the projector is down or far behind); the write is recorded and they catch up once it is back.',
  },
};

/** The routes the group's auditors read too. */
export const READERS: readonly Record<string, string[]>[] = [{ operatorToken: [] }, { auditorToken: [] }];

// ---- asked ------------------------------------------------------------------------------------

/** The largest hourly transaction cap an operator can set. */
export const MAX_HOURLY_TX_CAP = 1_000_000;

export const Label = { type: 'string', minLength: 1, maxLength: 100 } as const;

/** An approval threshold: an amount of the base token, or null (none). */
export const NullableAmount = { anyOf: [AmountInput, { type: 'null' }] } as const;

export const LimitProperties = {
  per_tx_limit: AmountInput,
  daily_limit: AmountInput,
  hourly_tx_cap: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_HOURLY_TX_CAP },
  approval_threshold: {
    ...NullableAmount,
    description:
      'Above this value a spend of the agent is held for approval, whatever the group’s policy says; null: the group’s threshold again.',
  },
} as const;
export const LIMIT_NAMES = ['per_tx_limit', 'daily_limit', 'hourly_tx_cap', 'approval_threshold'] as const;

export const LimitsInputSchema = object(LimitProperties, LIMIT_NAMES);

// ---- answered ---------------------------------------------------------------------------------

export const NullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
export const NullableText = { type: ['string', 'null'] } as const;
/** A decimal amount as exact text. */
export const AmountText = {
  type: 'string',
  pattern: '^[0-9]+(\\.[0-9]+)?$',
  description: 'An exact decimal, in human units.',
} as const;
/** An amount as exact text, or null. */
export const NullableAmountText = { type: ['string', 'null'], pattern: AmountText.pattern } as const;

export const LimitsData = object(
  { per_tx_limit: AmountText, daily_limit: AmountText, hourly_tx_cap: Count, approval_threshold: AmountText },
  ['approval_threshold'],
);
