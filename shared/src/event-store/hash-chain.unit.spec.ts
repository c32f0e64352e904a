import fc from 'fast-check';
import { canonicalize } from 'json-canonicalize';
import { GENESIS_LINK, canonicalJson, contentHash, linkHash } from './hash-chain';

describe('the hash chain', () => {
  it('writes canonical JSON exactly as the json-canonicalize library (RFC 8785) does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
    expect(canonicalJson({ b: 1, a: { d: [1, 'é', null], c: undefined }, '\u00e9': true, Z: 0.5 })).toBe(
      '{"Z":0.5,"a":{"d":[1,"é",null]},"b":1,"é":true}',
    );
  });

  it('hashes content whatever the order of its keys, and chains links', () => {
    const a = contentHash({ id: 'x', type: 't', data: { b: 1, a: 2 }, metadata: { timestamp: 'now' } });
    const b = contentHash({ type: 't', id: 'x', metadata: { timestamp: 'now' }, data: { a: 2, b: 1 } });
    expect(a.equals(b)).toBe(true);
    expect(
      contentHash({ id: 'x', type: 't', data: { a: 3, b: 1 }, metadata: { timestamp: 'now' } }).equals(a),
    ).toBe(false);
    const first = linkHash(GENESIS_LINK, a);
    expect(first.toString('hex')).toMatch(/^[0-9a-f]{64}$/);
    expect(linkHash(first, a).equals(first)).toBe(false);
  });
});
