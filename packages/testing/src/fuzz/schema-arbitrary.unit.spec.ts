/**
 * The generator reads the standard keywords the contract now uses: `anyOf` (a branch each time),
 * `multipleOf` (exact decimal multiples within the bounds) and a pattern that is not one character
 * class (fast-check's stringMatching). Every value it makes is one the service's validator accepts.
 */
import fc from 'fast-check';
import { AmountNumber, AmountString, parseJson, validate } from '@tokenops/shared';
import { arbitraryOf, type Schema } from './schema-arbitrary';
import { serialize } from './json-text';

const valid = (schema: Schema) =>
  fc.property(arbitraryOf(schema), (node) => {
    const body = parseJson(`{"amount":${serialize(node).toString('utf8')}}`);
    expect(() => validate('SimulateRequest', body)).not.toThrow();
  });

describe('the fuzz generator', () => {
  it('makes multiples of multipleOf as exact decimal text', () => {
    fc.assert(valid(AmountNumber), { numRuns: 300 });
  });

  it('keeps to the bounds in exact decimal: never past the u64 maximum (2^64 in floats)', () => {
    // Near the maximum, where 18446744073709.55 x 10^6 in floats is 18446744073709551616.
    fc.assert(valid({ ...AmountNumber, minimum: 18446744073709.5 }), { numRuns: 300 });
  });

  it('makes strings that match any pattern', () => {
    fc.assert(valid(AmountString), { numRuns: 300 });
  });

  it('takes each branch of anyOf', () => {
    const kinds = new Set<string>();
    fc.assert(
      fc.property(arbitraryOf({ anyOf: [AmountNumber, AmountString] }), (node) => void kinds.add(node.t)),
      { numRuns: 100 },
    );
    expect([...kinds].sort()).toEqual(['num', 'str']);
  });
});
