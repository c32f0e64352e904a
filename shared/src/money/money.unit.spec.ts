import Big from 'big.js';
import { codeOf, thrownBy } from '@tokenops/testing/errors';
import fc from 'fast-check';
import {
  MAX_AMOUNT,
  amountFromText,
  amountText,
  clampedRemaining,
  decimalsOf,
  fromBaseUnits,
  parseAmount,
  smallUnits,
  sumAmountTexts,
  toBaseUnits,
} from './amount';
import { PROTOCOL_FEE_BPS, minimumTransfer, splitFee } from './fee';

describe('amounts', () => {
  it.each([
    [12.5, '12.5'],
    ['12.5', '12.5'],
    [0, '0'],
    ['0.000001', '0.000001'],
    [1.1, '1.1'],
    ['1.100000', '1.1'],
    [1e-6, '0.000001'],
    ['18446744073709.551615', '18446744073709.551615'],
  ])('reads %p exactly as %s', (input, text) => {
    expect(parseAmount(input).toFixed()).toBe(text);
  });

  it.each([
    ['more than 6 decimals (number)', 0.1234567],
    ['more than 6 decimals (string)', '1.0000001'],
    ['negative', -1],
    ['negative string', '-1'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['non-numeric string', 'ten'],
    ['exponent string', '1e3'],
    ['empty string', ''],
    ['hex string', '0x10'],
    ['padded string', ' 1'],
    ['boolean', true],
    ['null', null],
    ['object', { amount: 1 }],
    ['beyond u64 base units', '18446744073709.551616'],
  ])('rejects %s as invalid_amount', (_, input) => {
    expect(codeOf(() => parseAmount(input))).toBe('invalid_amount');
  });

  it('takes an amount already read (a Big) under the same rules', () => {
    expect(parseAmount(new Big('2.5')).toFixed()).toBe('2.5');
    expect(codeOf(() => parseAmount(new Big('-0.000001')))).toBe('invalid_amount');
    expect(codeOf(() => parseAmount(new Big('0.0000001')))).toBe('invalid_amount');
    expect(codeOf(() => parseAmount(MAX_AMOUNT.plus('0.000001')))).toBe('invalid_amount');
  });

  it('names the field the caller got wrong', () => {
    expect(thrownBy(() => parseAmount('ten', 'daily_limit')).message).toContain('daily_limit');
    expect(thrownBy(() => parseAmount(-1)).message).toBe(thrownBy(() => parseAmount(-1, 'amount')).message);
  });

  it('counts only the decimals an amount really has: 1.50 has 1, 100 has none', () => {
    expect(decimalsOf(new Big('1.50'))).toBe(1);
    expect(decimalsOf(new Big('100'))).toBe(0);
    expect(decimalsOf(new Big('0.000001'))).toBe(6);
    expect(toBaseUnits(new Big('100'), 0)).toBe(100n);
  });

  it('writes an amount as exact decimal text, never an exponent, and reads it back', () => {
    expect(amountText(new Big('0.0000001'))).toBe('0.0000001');
    expect(amountText(new Big('1e21'))).toBe('1000000000000000000000');
    expect(amountFromText('12.345678').eq(new Big('12.345678'))).toBe(true);
  });

  it('what remains of a limit is never below zero', () => {
    expect(clampedRemaining(new Big(10), new Big(3)).toFixed()).toBe('7');
    expect(clampedRemaining(new Big(10), new Big(10)).toFixed()).toBe('0');
    expect(clampedRemaining(new Big(10), new Big('10.000001')).toFixed()).toBe('0');
  });

  it('converts to and from base units exactly for any decimals', () => {
    expect(toBaseUnits(new Big('12.345678'), 6)).toBe(12_345_678n);
    expect(toBaseUnits(new Big('12.345678'), 9)).toBe(12_345_678_000n);
    expect(toBaseUnits(new Big('7'), 0)).toBe(7n);
    expect(toBaseUnits(MAX_AMOUNT, 6)).toBe(2n ** 64n - 1n);
    expect(fromBaseUnits(1n, 9).toFixed()).toBe('0.000000001');
    expect(fromBaseUnits(1_500_000n, 6).toFixed()).toBe('1.5');
    expect(fromBaseUnits(0n, 6).toFixed()).toBe('0');
    expect(fromBaseUnits(-1_234_567n, 6).toFixed()).toBe('-1.234567');
    expect(fromBaseUnits(-7n, 0).toFixed()).toBe('-7');
    expect(fromBaseUnits(2n ** 64n - 1n, 6).toFixed()).toBe(MAX_AMOUNT.toFixed());
    expect(codeOf(() => toBaseUnits(new Big('1.005'), 2))).toBe('invalid_amount');
  });

  it('reads base units as dividing them by ten to the decimals would, whatever their sign', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.integer({ min: 0, max: 18 }),
        (units, decimals) => {
          expect(
            fromBaseUnits(units, decimals).eq(new Big(units.toString()).div(new Big(10).pow(decimals))),
          ).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('round-trips any 6-decimal amount through base units of any token with 6 or more decimals', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.integer({ min: 6, max: 12 }),
        (micro, decimals) => {
          const amount = fromBaseUnits(micro, 6);
          expect(toBaseUnits(amount, decimals)).toBe(micro * 10n ** BigInt(decimals - 6));
          expect(fromBaseUnits(toBaseUnits(amount, decimals), decimals).eq(amount)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('smallUnits', () => {
  it.each([
    ['0', 0],
    ['12', 12_000_000],
    ['0.1', 100_000],
    ['7.000001', 7_000_001],
    ['999999999.999999', 999_999_999_999_999],
    ['0012.50', 12_500_000],
  ])('reads %s as %d base units', (text, units) => expect(smallUnits(text)).toBe(units));

  it.each(['1000000000', '1.', '.5', '1.2345678', '1a', '1.5a', '1.5.', '', '-1', '+1', '1e3', ' 1', '1 '])(
    'leaves %p to the exact path (-1)',
    (text) => expect(smallUnits(text)).toBe(-1),
  );

  it('reads every plain amount of up to nine whole digits as its base units', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }),
        fc.integer({ min: 0, max: 6 }),
        (units, d) => {
          const amount = fromBaseUnits(units, d);
          const expected = amount.lt(1e9) ? Number(toBaseUnits(amount, 6)) : -1;
          expect(smallUnits(amountText(amount))).toBe(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('sumAmountTexts', () => {
  /** Lists of amounts (base units up to `max`, with 0 to `decimals` decimals) sum as Big sums them. */
  const sumsAsBig = (max: bigint, decimals: number, maxLength: number) =>
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.bigInt({ min: 0n, max }), fc.integer({ min: 0, max: decimals })), { maxLength }),
        (terms) => {
          const texts = terms.map(([units, d]) => amountText(fromBaseUnits(units, d)));
          const expected = texts.reduce((sum, t) => sum.plus(t), new Big(0));
          expect(sumAmountTexts(texts).eq(expected)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );

  it('adds up amount texts exactly as Big does, whatever their decimals', () => sumsAsBig(10n ** 20n, 9, 40));

  it('adds up many terms of up to nine whole digits exactly, past what a number holds', () => {
    sumsAsBig(10n ** 15n - 1n, 6, 80);
    // 2^53 base units is about 9,007,199,254 whole units: twenty of the largest such terms pass it.
    expect(sumAmountTexts(Array(20).fill('999999999.999999')).toFixed()).toBe('19999999999.99998');
    expect(sumAmountTexts(['999999999', '0.000001', '1000000000', '1.5']).toFixed()).toBe(
      '2000000000.500001',
    );
  });

  it('reads a term in another notation as Big does, and nothing at all as zero', () => {
    expect(sumAmountTexts(['1e3', '0.5', '2']).toFixed()).toBe('1002.5');
    expect(sumAmountTexts(['.5', '1.2345678', '1.', '0012.50']).toFixed()).toBe('15.2345678');
    for (const text of ['+1', '1a', '1.5.', '', '-']) expect(() => sumAmountTexts(['1', text])).toThrow();
    expect(sumAmountTexts([]).toFixed()).toBe('0');
  });
});

describe('the protocol fee', () => {
  it.each([
    ['100', '0.1', '99.9'],
    ['25.5', '0.0255', '25.4745'],
    ['0.0005', '0.000001', '0.000499'], // half a base unit rounds up
    ['0.000499', '0', '0.000499'], // under half a base unit: no fee
    ['0.000001', '0', '0.000001'],
    ['1234.567891', '1.234568', '1233.333323'],
  ])('on %s is %s, the recipient gets %s', (amount, fee, net) => {
    const split = splitFee(new Big(amount));
    expect(split.protocol_fee.toFixed()).toBe(fee);
    expect(split.net_amount.toFixed()).toBe(net);
  });

  it('is 10 basis points of the amount, rounded to at most 6 decimals even for a 9-decimal token', () => {
    expect(PROTOCOL_FEE_BPS).toBe(10);
    expect(splitFee(new Big('1.234567'), 9).protocol_fee.toFixed()).toBe('0.001235');
    expect(splitFee(new Big('1.234567')).protocol_fee.toFixed()).toBe('0.001235');
    expect(splitFee(new Big('1000')).amount.toFixed()).toBe('1000');
  });

  it('rounds to the token precision when it has fewer than 6 decimals', () => {
    expect(splitFee(new Big('12.34'), 2).protocol_fee.toFixed()).toBe('0.01');
  });

  it.each([0, 2, 6, 9])(
    'minimumTransfer (%i decimals) is the smallest amount whose fee is one base unit',
    (decimals) => {
      const scale = Math.min(decimals, 6);
      const unit = new Big(1).div(new Big(10).pow(scale));
      const minimum = minimumTransfer(decimals);
      expect(splitFee(minimum, decimals).protocol_fee.eq(unit)).toBe(true);
      expect(splitFee(minimum.minus(unit), decimals).protocol_fee.eq(0)).toBe(true);
    },
  );

  it('is the rule exactly: amount x 10 / 10,000 rounded half-up to the precision, for every amount', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.integer({ min: 0, max: 9 }),
        (units, decimals) => {
          const amount = fromBaseUnits(units, Math.min(decimals, 6));
          const rule = amount
            .times(PROTOCOL_FEE_BPS)
            .div(10_000)
            .round(Math.min(decimals, 6), Big.roundHalfUp);
          expect(splitFee(amount, decimals).protocol_fee.toFixed()).toBe(rule.toFixed());
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('minimumTransfer answers the same value however often it is asked', () => {
    expect(minimumTransfer(6).toFixed()).toBe('0.0005');
    expect(minimumTransfer(6)).toBe(minimumTransfer(6));
    expect(minimumTransfer(2).toFixed()).toBe('5');
    expect(minimumTransfer(9).toFixed()).toBe('0.0005');
  });

  it('always satisfies net_amount + protocol_fee = amount, within half a base unit of 0.10 %', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (micro) => {
        const amount = fromBaseUnits(micro, 6);
        const { protocol_fee, net_amount } = splitFee(amount);
        expect(net_amount.plus(protocol_fee).eq(amount)).toBe(true);
        expect(net_amount.gte(0) && protocol_fee.gte(0)).toBe(true);
        expect(protocol_fee.minus(amount.times('0.001')).abs().lte('0.0000005')).toBe(true);
        expect(toBaseUnits(protocol_fee, 6) >= 0n).toBe(true); // never more than 6 decimals
      }),
      { numRuns: 1000 },
    );
  });
});
