/**
 * A lending venue's exchange rate and the amounts it pays, in exact bigint arithmetic on base units.
 *
 * The rate is how much underlying one receipt token is worth. It starts at 1 when the venue is
 * created and grows at a yearly rate `apy_bps` (basis points): compounded once a year, and simple
 * (linear) within the year, so a deposit held for exactly one year returns `1 + apy` times what it
 * was worth, whenever it was made:
 *
 *     rate(t) = (1 + apy)^n × (1 + apy × r / YEAR)      t = n × YEAR + r, 0 <= r < YEAR
 *
 * with t the seconds since the venue's creation on the chain's clock and YEAR 365 days. The rate is
 * kept as an exact fraction (numerator / denominator), never rounded; only the amounts are rounded,
 * always down, which is always in the venue's favour: a deposit mints floor(amount / rate) receipt
 * tokens, a redemption pays floor(receipt × rate) underlying.
 */

/** A year on the rate's clock: 365 days of seconds. */
export const SECONDS_PER_YEAR = 31_536_000n;
/** Basis points in one. */
const BPS = 10_000n;
/** The highest yearly rate a venue may be configured with (100 %). */
export const MAX_APY_BPS = 10_000;
/** How many years of interest the rate computes; past that the venue is broken, not old. */
export const MAX_VENUE_YEARS = 1_000n;
/** The largest amount an SPL token account holds. */
export const U64_MAX = (1n << 64n) - 1n;

/** Underlying per receipt token, exactly: numerator / denominator (both positive). */
export interface ExchangeRate {
  numerator: bigint;
  denominator: bigint;
}

/** A yearly rate in basis points must be a whole number from 0 to 10,000. */
export function checkApyBps(apyBps: number): number {
  if (!Number.isInteger(apyBps) || apyBps < 0 || apyBps > MAX_APY_BPS)
    throw new RangeError(`a venue's yearly rate is 0 to ${MAX_APY_BPS} basis points, not ${apyBps}`);
  return apyBps;
}

/**
 * The exchange rate `elapsed` seconds after the venue's creation (0 or less: the starting rate, 1).
 * Monotone: a later time never has a lower rate.
 */
export function exchangeRate(apyBps: number, elapsed: bigint): ExchangeRate {
  checkApyBps(apyBps);
  const seconds = elapsed > 0n ? elapsed : 0n;
  const years = seconds / SECONDS_PER_YEAR;
  if (years > MAX_VENUE_YEARS) throw new RangeError(`the venue's clock says ${years} years: refused`);
  const rest = seconds % SECONDS_PER_YEAR;
  const bps = BigInt(apyBps);
  return {
    numerator: (BPS + bps) ** years * (BPS * SECONDS_PER_YEAR + bps * rest),
    denominator: BPS ** years * (BPS * SECONDS_PER_YEAR),
  };
}

/** Receipt tokens minted for a deposit of `amount` underlying: floor(amount / rate). */
export const receiptForDeposit = (amount: bigint, rate: ExchangeRate): bigint =>
  (amount * rate.denominator) / rate.numerator;

/** Underlying paid for redeeming `receipt` tokens: floor(receipt × rate). */
export const underlyingForReceipt = (receipt: bigint, rate: ExchangeRate): bigint =>
  (receipt * rate.numerator) / rate.denominator;

/** Whether rate `a` is below rate `b` (compared exactly). */
export const rateBelow = (a: ExchangeRate, b: ExchangeRate): boolean =>
  a.numerator * b.denominator < b.numerator * a.denominator;

/** The rate as decimal text with `places` digits, rounded down (for people and answers). */
export function rateText(rate: ExchangeRate, places = 12): string {
  const scaled = (rate.numerator * 10n ** BigInt(places)) / rate.denominator;
  const digits = scaled.toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
