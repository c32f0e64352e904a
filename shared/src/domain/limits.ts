import Big from 'big.js';
import { amountText, parseAmount, type Amount } from '../money';
import { validationError } from '../errors';

/** An agent's limits, in the group's base token. */
export interface Limits {
  per_tx_limit: Amount;
  daily_limit: Amount;
  hourly_tx_cap: number;
  /** Above this value a spend is held for approval, whatever the group's policy says (absent: the group's). */
  approval_threshold?: Amount;
}

/** Limits as events and read models store them: amounts as exact decimal text. */
export interface LimitsData {
  per_tx_limit: string;
  daily_limit: string;
  hourly_tx_cap: number;
  approval_threshold?: string;
}

export const limitsToData = (l: Limits): LimitsData => ({
  per_tx_limit: amountText(l.per_tx_limit),
  daily_limit: amountText(l.daily_limit),
  hourly_tx_cap: l.hourly_tx_cap,
  ...(l.approval_threshold !== undefined && { approval_threshold: amountText(l.approval_threshold) }),
});

export const limitsFromData = (d: LimitsData): Limits => ({
  per_tx_limit: new Big(d.per_tx_limit),
  daily_limit: new Big(d.daily_limit),
  hourly_tx_cap: d.hourly_tx_cap,
  ...(d.approval_threshold !== undefined && { approval_threshold: new Big(d.approval_threshold) }),
});

/** Operator input for limits: any subset, laid over `base`. Amounts as numbers or decimal strings. */
export interface LimitsInput {
  per_tx_limit?: unknown;
  daily_limit?: unknown;
  hourly_tx_cap?: unknown;
  /** A value: the agent's own approval threshold; null: back to the group's. */
  approval_threshold?: unknown;
}

export function mergeLimits(base: Limits, input: LimitsInput): Limits {
  const hourly = input.hourly_tx_cap;
  if (hourly !== undefined && !(Number.isSafeInteger(hourly) && (hourly as number) >= 0)) {
    throw validationError([{ path: '/hourly_tx_cap', issue: 'must be a non-negative integer' }]);
  }
  const threshold =
    input.approval_threshold === undefined
      ? base.approval_threshold
      : input.approval_threshold === null
        ? undefined
        : parseAmount(input.approval_threshold, 'approval_threshold');
  return {
    per_tx_limit:
      input.per_tx_limit === undefined ? base.per_tx_limit : parseAmount(input.per_tx_limit, 'per_tx_limit'),
    daily_limit:
      input.daily_limit === undefined ? base.daily_limit : parseAmount(input.daily_limit, 'daily_limit'),
    hourly_tx_cap: hourly === undefined ? base.hourly_tx_cap : (hourly as number),
    ...(threshold !== undefined && { approval_threshold: threshold }),
  };
}
