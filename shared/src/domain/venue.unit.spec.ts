/**
 * The lending venue's arithmetic: the rate grows with the chain's clock, and every amount rounds in
 * the venue's favour, so no sequence of deposits and withdrawals takes out more than it is owed.
 */
import fc from 'fast-check';
import {
  SECONDS_PER_YEAR,
  U64_MAX,
  checkApyBps,
  exchangeRate,
  rateBelow,
  rateText,
  receiptForDeposit,
  underlyingForReceipt,
  type ExchangeRate,
} from './venue';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);
const amount = fc.bigInt({ min: 0n, max: U64_MAX });
const apy = fc.integer({ min: 0, max: 10_000 });
/** Up to 30 years, in seconds. */
const elapsed = fc.bigInt({ min: 0n, max: 30n * SECONDS_PER_YEAR });

/** a × rate, exactly, as a fraction compared by cross-multiplication. */
const timesRate = (a: bigint, r: ExchangeRate) => ({
  numerator: a * r.numerator,
  denominator: r.denominator,
});

describe('the exchange rate', () => {
  it('starts at 1, and a clock before the creation counts as the creation', () => {
    expect(rateText(exchangeRate(500, 0n))).toBe('1');
    expect(rateText(exchangeRate(500, -3_600n))).toBe('1');
  });

  it('grows by the yearly rate in a year, simply within it, and compounds from year to year', () => {
    expect(rateText(exchangeRate(500, SECONDS_PER_YEAR))).toBe('1.05');
    expect(rateText(exchangeRate(500, SECONDS_PER_YEAR / 2n))).toBe('1.025');
    expect(rateText(exchangeRate(500, 2n * SECONDS_PER_YEAR))).toBe('1.1025');
    expect(rateText(exchangeRate(500, (5n * SECONDS_PER_YEAR) / 2n))).toBe('1.1300625');
    expect(rateText(exchangeRate(0, 10n * SECONDS_PER_YEAR))).toBe('1');
  });

  it('never goes down as the clock moves on', () => {
    // across a year's end: the linear part reaches 1 + apy exactly as the compounding takes over
    expect(rateBelow(exchangeRate(500, SECONDS_PER_YEAR), exchangeRate(500, SECONDS_PER_YEAR - 1n))).toBe(
      false,
    );
    fc.assert(
      fc.property(apy, elapsed, elapsed, (bps, a, b) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        expect(rateBelow(exchangeRate(bps, late), exchangeRate(bps, early))).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it('returns exactly 1 + apy times what it was worth after one year, whenever the deposit was made', () => {
    fc.assert(
      fc.property(apy, elapsed, (bps, start) => {
        const before = exchangeRate(bps, start);
        const after = exchangeRate(bps, start + SECONDS_PER_YEAR);
        // after / before = (10_000 + bps) / 10_000
        expect(after.numerator * before.denominator * 10_000n).toBe(
          before.numerator * after.denominator * (10_000n + BigInt(bps)),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a yearly rate that is not 0 to 10,000 basis points, and a clock a thousand years on', () => {
    for (const bad of [-1, 10_001, 1.5, Number.NaN]) expect(() => checkApyBps(bad)).toThrow(RangeError);
    expect(() => exchangeRate(500, 1_001n * SECONDS_PER_YEAR)).toThrow(RangeError);
  });
});

describe('amounts, rounded in the venue’s favour', () => {
  it('mints receipt tokens worth at most the deposit, and less than one receipt token short of it', () => {
    fc.assert(
      fc.property(amount, apy, elapsed, (paid, bps, t) => {
        const rate = exchangeRate(bps, t);
        const receipt = receiptForDeposit(paid, rate);
        const worth = timesRate(receipt, rate);
        const worthOneMore = timesRate(receipt + 1n, rate);
        expect(worth.numerator <= paid * worth.denominator).toBe(true);
        expect(worthOneMore.numerator > paid * worthOneMore.denominator).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('pays at most what the receipt tokens are worth, and less than one unit short of it', () => {
    fc.assert(
      fc.property(amount, apy, elapsed, (receipt, bps, t) => {
        const rate = exchangeRate(bps, t);
        const paid = underlyingForReceipt(receipt, rate);
        const worth = timesRate(receipt, rate);
        expect(paid * worth.denominator <= worth.numerator).toBe(true);
        expect((paid + 1n) * worth.denominator > worth.numerator).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('never returns more than was deposited when the withdrawal follows at once', () => {
    fc.assert(
      fc.property(amount, apy, elapsed, (paid, bps, t) => {
        const rate = exchangeRate(bps, t);
        expect(underlyingForReceipt(receiptForDeposit(paid, rate), rate) <= paid).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('never returns more than the deposit grown by the rate, however long it was held', () => {
    fc.assert(
      fc.property(amount, apy, elapsed, elapsed, (paid, bps, a, b) => {
        const [t1, t2] = a <= b ? [a, b] : [b, a];
        const r1 = exchangeRate(bps, t1);
        const r2 = exchangeRate(bps, t2);
        const back = underlyingForReceipt(receiptForDeposit(paid, r1), r2);
        // back <= paid × r2 / r1
        expect(back * r2.denominator * r1.numerator <= paid * r2.numerator * r1.denominator).toBe(true);
        expect(back >= 0n).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('1,000 USDC held a year at 5 % comes back as 1,050 USDC to the unit', () => {
    const start = exchangeRate(500, 0n);
    const receipt = receiptForDeposit(1_000_000_000n, start);
    expect(receipt).toBe(1_000_000_000n);
    expect(underlyingForReceipt(receipt, exchangeRate(500, SECONDS_PER_YEAR))).toBe(1_050_000_000n);
    // a deposit after that year buys fewer receipt tokens, rounded down
    expect(receiptForDeposit(1_000_000_000n, exchangeRate(500, SECONDS_PER_YEAR))).toBe(952_380_952n);
  });
});
