/**
 * Valid requests from a JSON Schema: a fast-check arbitrary over the subset of JSON Schema the
 * contract uses (schemas.ts), producing JSON text trees (json-text.ts). A keyword it does not know
 * fails loudly when the arbitrary is built, so a schema that grows a new keyword cannot be fuzzed
 * half-blind.
 */
import fc from 'fast-check';
import { arr, lit, num, obj, str, type Json } from './json-text';
import type { Schema } from './schema';

export type { Schema };

const KNOWN = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'multipleOf',
  'anyOf',
  'enum',
  'const',
  'default',
  'description',
  'x-amount',
  // The memo's bound in UTF-8 bytes: the generated strings (at most 40 ASCII characters) are within it.
  'x-max-utf8-bytes',
  'uniqueItems',
  // A map's bound on its entries: the generated objects hold only their listed properties (a map, none).
  'maxProperties',
]);

/** Values a property may take besides what its schema generates (known recipients, real codes). */
export type Hints = Readonly<Record<string, fc.Arbitrary<Json>>>;

/**
 * Strings of the characters of a class like `[1-9A-HJ-NP-Za-km-z]`. (fast-check's stringMatching
 * would do, but un-mapping its values while shrinking costs seconds per test.)
 */
export function charsOf(cls: string, minLength: number, maxLength: number): fc.Arbitrary<string> {
  const chars: string[] = [];
  for (const [, from, to] of cls.slice(1, -1).matchAll(/(.)(?:-(.))?/gu))
    for (let c = from!.codePointAt(0)!; c <= (to ?? from!).codePointAt(0)!; c++)
      chars.push(String.fromCodePoint(c));
  return fc.array(fc.constantFrom(...chars), { minLength, maxLength }).map((cs) => cs.join(''));
}

/** Webhook URLs without DNS: IP literals (public and private) and a name under `.invalid` (RFC 6761). */
const httpsUrl: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(
      '93.184.215.14',
      '1.1.1.1',
      '[2606:4700:4700::1111]',
      '127.0.0.1',
      '10.1.2.3',
      '[::1]',
      'hooks.example.invalid',
    ),
    fc.constantFrom('', ':8443'),
    fc.constantFrom('', '/', '/hooks', '/a/b_c-d', '/hooks?x=1'),
  )
  .map(([host, port, path]) => `https://${host}${port}${path}`);

/** An amount as the contract takes it: at most 6 decimals, a JSON number or a decimal string. */
const amount: fc.Arbitrary<Json> = fc
  .tuple(
    fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 100 }).map(String) },
      { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 15n }).map(String) },
    ),
    fc.oneof(fc.constant(''), charsOf('[0-9]', 1, 6)),
    fc.boolean(),
  )
  .map(([whole, fraction, asString]) => {
    const text = fraction ? `${whole}.${fraction}` : whole;
    return asString ? str(text) : num(text);
  });

function checkKeywords(schema: Schema): void {
  for (const keyword of Object.keys(schema))
    if (!KNOWN.has(keyword)) throw new Error(`the fuzz generator does not know the keyword "${keyword}"`);
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, Math.max(minLength, 40));
  if (schema.format === 'uri' && schema.pattern === '^https://') return httpsUrl;
  if (schema.format === 'date-time')
    return fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  if (schema.format !== undefined)
    throw new Error(`the fuzz generator does not know format "${schema.format}"`);
  if (schema.pattern !== undefined) {
    // Most of the contract's patterns are one character class repeated (^[...]+$): fast to shrink.
    const cls = /^\^(\[[^\]]+\])\+\$$/.exec(schema.pattern)?.[1];
    if (cls) return charsOf(cls, Math.max(1, minLength), maxLength);
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((text) => text.length >= minLength && text.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ unit: 'grapheme-ascii', minLength, maxLength });
}

function ofType(type: string, schema: Schema, hints: Hints): fc.Arbitrary<Json> {
  switch (type) {
    case 'string':
      return stringOf(schema).map(str);
    case 'integer':
      return fc
        .integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000_000 })
        .map((n) => num(String(n)));
    case 'number':
      if (schema.multipleOf !== undefined) return multiplesOf(schema);
      return fc
        .double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true })
        .map((n) => num(String(n)));
    case 'boolean':
      return fc.boolean().map((b) => lit(b ? 'true' : 'false'));
    case 'null':
      return fc.constant(lit('null'));
    case 'array': {
      const bounds = {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 8, Math.max(schema.minItems ?? 0, 8)),
      };
      const items = arbitraryOf(schema.items ?? {}, hints);
      return (
        schema.uniqueItems
          ? fc.uniqueArray(items, { ...bounds, selector: (item) => JSON.stringify(item) })
          : fc.array(items, bounds)
      ).map(arr);
    }
    case 'object':
      return objectOf(schema, hints);
    default:
      throw new Error(`the fuzz generator does not know the type "${type}"`);
  }
}

/** `value` in units of 10^-decimals, exactly as its decimal text says (digits past `decimals` dropped, toward zero). */
function units(value: number, decimals: number): bigint {
  const text = String(value);
  if (/e/i.test(text)) return BigInt(Math.trunc(value * 10 ** decimals)); // no bound of the contract's
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  const magnitude = BigInt(`${whole}${fraction.padEnd(decimals, '0').slice(0, decimals)}`);
  return text.startsWith('-') ? -magnitude : magnitude;
}

/** Numbers that are multiples of `multipleOf` within the bounds, written as exact decimal text. */
function multiplesOf(schema: Schema): fc.Arbitrary<Json> {
  const decimals = (String(schema.multipleOf).split('.')[1] ?? '').length;
  const scale = 10 ** decimals;
  const step = BigInt(Math.round(schema.multipleOf! * scale));
  // The bounds in exact decimal: in floats, 18446744073709.55 x 10^6 is 2^64, one past the u64 maximum.
  const low = units(schema.minimum ?? -1e6, decimals);
  const high = units(schema.maximum ?? 1e6, decimals);
  const min = low / step + (low > 0n && low % step !== 0n ? 1n : 0n);
  const max = high / step - (high < 0n && high % step !== 0n ? 1n : 0n);
  return fc.bigInt({ min, max }).map((k) => {
    const value = k * step;
    const sign = value < 0n ? '-' : '';
    const digits = (value < 0n ? -value : value).toString().padStart(decimals + 1, '0');
    const text = decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
    return num(`${sign}${text}`);
  });
}

function objectOf(schema: Schema, hints: Hints): fc.Arbitrary<Json> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const fields = properties.map(([name, s]) => {
    const own = arbitraryOf(s, hints);
    const hinted = hints[name];
    const value = hinted ? fc.oneof(own, hinted) : own;
    const entry = value.map((v): [string, Json] => [name, v]);
    return required.has(name)
      ? entry.map((e) => [e])
      : fc.option(entry, { nil: undefined }).map((e) => (e ? [e] : []));
  });
  return fc.tuple(...fields).map((parts) => obj(parts.flat() as [string, Json][]));
}

/** An arbitrary of JSON trees valid against `schema` (each node remembers its schema). */
export function arbitraryOf(schema: Schema, hints: Hints = {}): fc.Arbitrary<Json> {
  checkKeywords(schema);
  let arbitrary: fc.Arbitrary<Json>;
  if (schema.const !== undefined) arbitrary = fc.constant(valueOf(schema.const));
  else if (schema.enum) arbitrary = fc.constantFrom(...schema.enum.map(valueOf));
  else if (schema['x-amount']) arbitrary = amount;
  else if (schema.anyOf) arbitrary = fc.oneof(...schema.anyOf.map((branch) => arbitraryOf(branch, hints)));
  else {
    const types = schema.type === undefined ? ['string'] : [schema.type].flat();
    arbitrary = fc.oneof(...types.map((t) => ofType(t, schema, hints)));
  }
  return arbitrary.map((node) => ({ ...node, s: schema }));
}

function valueOf(value: unknown): Json {
  if (typeof value === 'string') return str(value);
  if (typeof value === 'number') return num(String(value));
  if (typeof value === 'boolean') return lit(value ? 'true' : 'false');
  if (value === null) return lit('null');
  throw new Error(`the fuzz generator cannot write the constant ${JSON.stringify(value)}`);
}

/** Marks a hand-written tree (an example) with the schemas of its nodes, as generated ones are. */
export function annotate(node: Json, schema: Schema): Json {
  if (node.t === 'obj')
    return {
      ...node,
      s: schema,
      entries: node.entries.map(([k, v]) => {
        const s = schema.properties?.[k];
        return [k, s ? annotate(v, s) : v];
      }),
    };
  if (node.t === 'arr')
    return { ...node, s: schema, items: node.items.map((v) => annotate(v, schema.items ?? {})) };
  return { ...node, s: schema };
}
