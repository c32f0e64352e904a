import { canonicalJson } from './canonical-json';
import { parseGroupScopedId } from './group-scoped-id';

describe('canonicalJson', () => {
  it('writes what JSON.stringify leaves out or nulls as it does: in arrays null, in objects nothing', () => {
    const fn = () => 1;
    expect(canonicalJson([undefined, fn, 1])).toBe('[null,null,1]');
    expect(canonicalJson({ b: undefined, a: fn, c: 1 })).toBe('{"c":1}');
    expect(JSON.parse(canonicalJson([undefined, fn, 1]))).toEqual(
      JSON.parse(JSON.stringify([undefined, fn, 1])),
    );
  });

  it('writes a value with toJSON (a Date) as its toJSON', () => {
    const at = new Date(Date.UTC(2026, 11, 3));
    expect(canonicalJson({ at })).toBe('{"at":"2026-12-03T00:00:00.000Z"}');
    expect(canonicalJson({ toJSON: () => ({ z: 1, a: 2 }) })).toBe('{"a":2,"z":1}');
  });
});

describe('parseGroupScopedId', () => {
  it('needs a group before the last underscore', () => {
    expect(parseGroupScopedId('g-1_abc')).toEqual({ groupId: 'g-1', id: 'abc' });
    expect(parseGroupScopedId('_abc')).toBeUndefined();
  });
});
