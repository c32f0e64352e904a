import Big from 'big.js';
import { ServiceError } from '../errors';

/**
 * Amounts in human units (e.g. 12.5 USDC) are `Big` values in the domain and `bigint` base units on
 * chain. JavaScript numbers never carry money past the JSON boundary: a JSON number is read from its
 * source text (see contract/json.ts), so what the caller wrote is what we hold.
 */
export type Amount = Big;

/** The contract's precision: at most 6 decimals in every amount. */
export const AMOUNT_SCALE = 6;

/** The largest amount a u64 of 6-decimal base units can hold (18,446,744,073,709.551615). */
export const MAX_AMOUNT: Amount = new Big('18446744073709.551615');

const DECIMAL = /^\d+(\.\d+)?$/;

export const ZERO: Amount = new Big(0);

/** How many decimals a value really has (trailing zeros do not count: 1.50 has 1). */
export function decimalsOf(value: Amount): number {
  return Math.max(0, value.c.length - value.e - 1);
}

/**
 * Reads an amount from a JSON number or a decimal string. Anything that is not a finite, non-negative
 * decimal with at most 6 decimals and within u64 range is `invalid_amount`.
 */
export function parseAmount(input: unknown, field = 'amount'): Amount {
  let value: Amount;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw invalid(field, 'is not a finite number');
    value = new Big(String(input));
  } else if (typeof input === 'string') {
    if (!DECIMAL.test(input)) throw invalid(field, 'is not a decimal number like "12.5"');
    value = new Big(input);
  } else if (input instanceof Big) {
    value = input;
  } else {
    throw invalid(field, 'is not a number');
  }
  if (value.lt(0)) throw invalid(field, 'is negative');
  if (decimalsOf(value) > AMOUNT_SCALE) throw invalid(field, `has more than ${AMOUNT_SCALE} decimals`);
  if (value.gt(MAX_AMOUNT)) throw invalid(field, 'is too large');
  return value;
}

/** Exact conversion to base units of a token with `decimals` decimals. */
export function toBaseUnits(amount: Amount, decimals: number): bigint {
  if (decimalsOf(amount) > decimals) {
    throw new ServiceError('invalid_amount', `The amount has more decimals than the token's ${decimals}.`);
  }
  return BigInt(amount.times(new Big(10).pow(decimals)).toFixed(0));
}

/**
 * Exact conversion from base units of a token with `decimals` decimals: the units' digits with a point
 * put in (no division, which Big does digit by digit).
 */
export function fromBaseUnits(units: bigint, decimals: number): Amount {
  const sign = units < 0n ? '-' : '';
  const digits = (units < 0n ? -units : units).toString();
  if (decimals === 0) return new Big(`${sign}${digits}`);
  const padded = digits.padStart(decimals + 1, '0');
  return new Big(`${sign}${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`);
}

/** The canonical decimal text of an amount (no exponent), as stored in events. */
export const amountText = (amount: Amount): string => amount.toFixed();

/** Reads an amount that this service wrote itself (events, read models). */
export const amountFromText = (text: string): Amount => new Big(text);

/**
 * The exact sum of amounts this service wrote itself (canonical decimal text): added up as base units
 * of AMOUNT_SCALE decimals, without a Big per term (a read over a day's window adds up every spend in
 * it). A term of at most SMALL_WHOLE_DIGITS whole digits is read as a number of base units (below
 * SMALL_TERM_LIMIT, an integer a number holds exactly) and added to a running integer that is moved into a bigint
 * before it could pass 2^53; a longer term as a bigint; a term with more decimals, or in another
 * notation, exactly as a Big.
 */
export function sumAmountTexts(texts: Iterable<string>): Amount {
  let small = 0; // base units, an integer below Number.MAX_SAFE_INTEGER: exact
  let units = 0n;
  let rest: Amount | undefined;
  for (const text of texts) {
    const read = smallUnits(text);
    if (read >= 0) {
      if (small > SMALL_SUM_BOUND) {
        units += BigInt(small);
        small = 0;
      }
      small += read;
      continue;
    }
    const plain = PLAIN_AMOUNT.exec(text);
    if (plain) units += BigInt(plain[1]! + (plain[2] ?? '').padEnd(AMOUNT_SCALE, '0'));
    else rest = (rest ?? ZERO).plus(text);
  }
  const sum = fromBaseUnits(units + BigInt(small), AMOUNT_SCALE);
  return rest ? sum.plus(rest) : sum;
}

/** Digits, and at most AMOUNT_SCALE of them after a point: the whole part and the decimals. */
const PLAIN_AMOUNT = new RegExp(`^(\\d+)(?:\\.(\\d{1,${AMOUNT_SCALE}}))?$`);

/** The whole digits of a term read as a number: its base units stay below SMALL_TERM_LIMIT. */
const SMALL_WHOLE_DIGITS = 9;
/** 10^15 with AMOUNT_SCALE 6: an integer a number holds exactly, with room to add many. */
const SMALL_TERM_LIMIT = 10 ** (SMALL_WHOLE_DIGITS + AMOUNT_SCALE);
/** A running sum past this is moved into a bigint before a term (below SMALL_TERM_LIMIT) is added to it. */
const SMALL_SUM_BOUND = Number.MAX_SAFE_INTEGER - SMALL_TERM_LIMIT;
/** Base units of one unit, and of a decimal digit by how many decimals are written. */
const UNIT = 10 ** AMOUNT_SCALE;
const SCALE_OF = Array.from({ length: AMOUNT_SCALE + 1 }, (_, written) => 10 ** (AMOUNT_SCALE - written));

/**
 * The base units of a plain amount (digits, and 1 to AMOUNT_SCALE of them after a point) of at most
 * SMALL_WHOLE_DIGITS whole digits, as a number; -1 for any other text (sumAmountTexts' fast path;
 * exported for its tests).
 */
export function smallUnits(text: string): number {
  const length = text.length;
  let whole = 0;
  let i = 0;
  for (; i < length && i <= SMALL_WHOLE_DIGITS; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    whole = whole * 10 + digit;
  }
  if (i === 0 || i > SMALL_WHOLE_DIGITS) return -1;
  if (i === length) return whole * UNIT;
  const decimals = length - i - 1;
  if (text.charCodeAt(i) !== 46 || decimals < 1 || decimals > AMOUNT_SCALE) return -1; // 46: '.'
  let fraction = 0;
  for (let j = i + 1; j < length; j++) {
    const digit = text.charCodeAt(j) - 48;
    if (digit < 0 || digit > 9) return -1;
    fraction = fraction * 10 + digit;
  }
  return whole * UNIT + fraction * SCALE_OF[decimals]!;
}

/** The smaller of two amounts, and never below zero. */
export const clampedRemaining = (limit: Amount, used: Amount): Amount =>
  used.gte(limit) ? ZERO : limit.minus(used);

function invalid(field: string, why: string): ServiceError {
  return new ServiceError(
    'invalid_amount',
    `The ${field} ${why}; send a non-negative amount with at most 6 decimals.`,
  );
}
