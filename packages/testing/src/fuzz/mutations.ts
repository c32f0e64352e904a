/**
 * How a valid request is broken. Each family is a fast-check arbitrary of mutations; a mutation
 * picks its spot in the request when applied (`pick` modulo the candidates), so any mutation fits
 * any request and shrinks towards the first candidate.
 *
 * Stages, applied in order: 0 the JSON tree of the body, 1 the bytes of the body, 2 the rest of the
 * request (path parameters, query, headers).
 */
import fc from 'fast-check';
import { arr, lit, nodes, num, obj, replaceNode, serialize, str, type Json } from './json-text';
import { charsOf } from './schema-arbitrary';

export const FAMILIES = ['types', 'numbers', 'strings', 'bytes', 'keys', 'path', 'query', 'headers'] as const;
export type Family = (typeof FAMILIES)[number];

/** A request being built: what the mutations change. */
export interface Draft {
  body: Json | undefined;
  /** The body as sent; written from `body` after stage 0. */
  raw: Buffer | undefined;
  /** The Content-Type header; undefined: none. */
  contentType: string | undefined;
  /** Send the body without Content-Length (chunked). */
  chunked: boolean;
  /** Path parameters, percent-encoded as they go on the wire. */
  params: Record<string, string>;
  /** Query pairs, percent-encoded. */
  query: [string, string][];
  headers: Record<string, string>;
}

export interface Mutation {
  label: string;
  stage: 0 | 1 | 2;
  apply(draft: Draft): void;
}

/** What the mutations of one endpoint may use. */
export interface Target {
  params: readonly string[];
  idempotent: boolean;
  auth: 'agent' | 'operator' | 'none';
  /** A valid credential of the other kind (an operator JWT on an agent endpoint, and back). */
  otherCredential: string;
}

const at = <T>(xs: readonly T[], pick: number): T => xs[pick % xs.length]!;
const preview = (text: string, max = 40): string => {
  const escaped = JSON.stringify(text);
  return escaped.length > max ? `${escaped.slice(0, max)}…(${text.length} chars)` : escaped;
};
const show = (node: Json): string => {
  const text = serialize(node).toString('latin1');
  return text.length > 40 ? `${text.slice(0, 40)}…(${text.length} bytes)` : text;
};

/** The body tree to mutate; an empty object when the request has none. */
const bodyOf = (d: Draft): Json => d.body ?? obj([]);
const leaves = (root: Json) => nodes(root).filter(({ node }) => node.t !== 'obj' && node.t !== 'arr');
const objects = (root: Json) => nodes(root).filter(({ node }) => node.t === 'obj');
const typesOf = (node: Json): string[] => {
  const type = node.s?.type;
  return type === undefined ? [] : [type].flat();
};

function treeMutation(
  label: (pointer: string) => string,
  candidates: (root: Json) => { node: Json; pointer: string }[],
  pick: number,
  replace: (node: Json) => Json,
): Mutation {
  let described = label('?');
  return {
    stage: 0,
    get label() {
      return described;
    },
    apply(d) {
      const root = bodyOf(d);
      const found = candidates(root);
      const chosen = found.length > 0 ? at(found, pick) : { node: root, pointer: '' };
      d.body = replaceNode(root, chosen.node, replace);
      described = label(chosen.pointer); // after `replace`, which may say what it wrote
    },
  };
}

// ---- types: a value of another type anywhere, the body itself included ----------------------

const WRONG_TYPES: Json[] = [
  lit('null'),
  lit('true'),
  lit('false'),
  num('0'),
  num('1'),
  num('-1'),
  num('1.5'),
  str(''),
  str('x'),
  str('1'),
  str('true'),
  str('null'),
  arr([]),
  arr([num('1')]),
  arr([str('x'), lit('null')]),
  obj([]),
  obj([['a', num('1')]]),
  arr([obj([])]),
];

const types: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.constantFrom(...WRONG_TYPES))
  .map(([pick, value]) =>
    treeMutation(
      (p) => `type ${p || '(body)'} := ${show(value)}`,
      nodes,
      pick,
      () => value,
    ),
  );

// ---- numbers: out of range, exponents, negative zero, more digits than a float holds -----------

const NUMBER_LEXEMES = [
  '1e400',
  '-1e400',
  '1e308',
  '1.8e308',
  '-0',
  '-0.0',
  '0e0',
  '-0e-0',
  '1e-7',
  '0.0000001',
  '1e-400',
  '5e-324',
  '1E+2',
  '1e2',
  '1.0',
  '1.0000001',
  '9007199254740992',
  '9007199254740993',
  '123456789012345678901234567890',
  '1e13',
  '1e21',
  '-1',
  '-0.000001',
  '2147483648',
  '4294967296',
  '18446744073709551616',
  '-9223372036854775809',
  '10001',
  '256',
  '0.30000000000000004',
  '1e999999999',
  '1e-999999999',
  '100000000000000000000000.000001',
];
/** Number-like text that is not a JSON number: as a string it reaches the decimal parsers. */
const NUMBER_TEXTS = [
  ' 1',
  '1 ',
  '1,5',
  '0x10',
  '+1',
  '.5',
  '1.',
  '1_000',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e',
  '--1',
];

const numberLexeme: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NUMBER_LEXEMES) },
  // Large, yet whole and safe for a float: past what a date, a duration or a count can hold.
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 3, max: 15 }), fc.boolean())
      .map(([m, e, exponent]) => (exponent ? `${m}e${e}` : `${m}${'0'.repeat(e)}`)),
  },
  fc
    .tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -400, max: 400 }))
    .map(([m, e]) => `${m}e${e}`),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? '-0' : String(x))),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc
    .tuple(fc.nat({ max: 10 ** 9 }), charsOf('[0-9]', 7, 30))
    .map(([whole, fraction]) => `${whole}.${fraction}`),
);

const numberValue: fc.Arbitrary<{ node: Json; text: string }> = fc.oneof(
  { weight: 3, arbitrary: numberLexeme.map((raw) => ({ node: num(raw), text: raw })) },
  numberLexeme.map((raw) => ({ node: str(raw), text: JSON.stringify(raw) })),
  fc.constantFrom(...NUMBER_TEXTS).map((t) => ({ node: str(t), text: JSON.stringify(t) })),
);

const isNumeric = (node: Json) =>
  node.s?.['x-amount'] === true || typesOf(node).some((t) => t === 'number' || t === 'integer');

const numbers: fc.Arbitrary<Mutation> = fc.tuple(fc.nat(), numberValue).map(([pick, value]) =>
  treeMutation(
    (p) => `number ${p || '(body)'} := ${value.text.slice(0, 60)}`,
    (root) => {
      const numeric = nodes(root).filter(({ node }) => isNumeric(node));
      return numeric.length > 0 ? numeric : leaves(root);
    },
    pick,
    () => value.node,
  ),
);

// ---- strings: U+0000, lone surrogates, control and format characters, overlong ---------------

const SPECIAL_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\udc00\ud800y',
  '\ud83d',
  '\u0001\u0002\u001f\u007f',
  '\u2028\u2029',
  '\ufeff',
  '\u202e',
  '\u{1F600}',
  'e\u0301',
  '中文字符',
  '%00',
  '%C0%80',
  '../../etc/passwd',
  '\\',
  '"',
  "' OR '1'='1",
  '<script>alert(1)</script>',
  '   ',
  '',
  '\r\n',
  '${jndi:ldap://x}',
  '__proto__',
];

const OVERLONG_UNITS = ['x', '1', 'é', '\u{1F600}', '\u0000'];
/** Lengths past every limit: field limits, the 64 KiB body limit (a 413), well past it. */
const OVERLONG_LENGTHS = [256, 513, 1025, 10_000, 60_000, 100_000];

const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/**
 * Any code point, lone surrogates included, the control and ASCII range most often. (fast-check's
 * 'binary' unit would do, but un-mapping its values maps all 1.1 million code points first.)
 */
const anyCodePoint = fc
  .oneof(
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x7f }) },
    fc.integer({ min: 0x80, max: 0xffff }),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  )
  .map((c) => String.fromCodePoint(c));
const specialString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  fc.string({ unit: anyCodePoint, maxLength: 12 }),
  fc.string({ unit: fc.oneof(lone, fc.constantFrom('a', '\u0000')), minLength: 1, maxLength: 6 }),
);

/** URLs that a URL check may read otherwise than a URL parser: hosts in other notations, broken forms. */
const TRICKY_URLS = [
  'https://',
  'https://[::1',
  'https://a b.example/',
  'https://%zz/',
  'https://2130706433/',
  'https://0x7f.0.0.1/',
  'https://127.1/',
  'https://0177.0.0.1/',
  'https://[::ffff:7f00:1]/',
  'https://[fe80::1%25eth0]/',
  'https://localhost/',
  'https://1.1.1.1:99999/',
  'https://1.1.1.1:0/',
  'https://user@1.1.1.1/',
  'https://1.1.1.1\\@127.0.0.1/',
  'https://1.1.1.1#@127.0.0.1/',
  'https://xn--/',
  'https://./',
  'https://\u0000.example/',
  'HTTPS://1.1.1.1/',
  'https:1.1.1.1',
  'https:/1.1.1.1/',
  'https://1.1.1.1/' + 'a'.repeat(2_100),
];

type StringChange =
  | { kind: 'replace'; text: string }
  | { kind: 'insert'; text: string; position: number }
  | { kind: 'overlong'; unit: string; length: number | 'limit+1' };

const stringChange: fc.Arbitrary<StringChange> = fc.oneof(
  specialString.map((text) => ({ kind: 'replace' as const, text })),
  fc.constantFrom(...TRICKY_URLS).map((text) => ({ kind: 'replace' as const, text })),
  fc.tuple(specialString, fc.nat()).map(([text, position]) => ({ kind: 'insert' as const, text, position })),
  fc
    .tuple(
      fc.constantFrom(...OVERLONG_UNITS),
      fc.oneof(fc.constant('limit+1' as const), fc.constantFrom(...OVERLONG_LENGTHS)),
    )
    .map(([unit, length]) => ({ kind: 'overlong' as const, unit, length })),
);

const isStringy = (node: Json) => node.t === 'str' || typesOf(node).includes('string');

function changeString(node: Json, change: StringChange): { node: Json; text: string } {
  const original = node.t === 'str' ? node.text : '';
  if (change.kind === 'replace') return { node: str(change.text), text: preview(change.text) };
  if (change.kind === 'insert') {
    const p = change.position % (original.length + 1);
    const text = original.slice(0, p) + change.text + original.slice(p);
    return { node: str(text), text: `${preview(change.text)} inserted at ${p}` };
  }
  const length = change.length === 'limit+1' ? (node.s?.maxLength ?? 255) + 1 : change.length;
  const text = change.unit.repeat(Math.ceil(length / change.unit.length)).slice(0, length);
  return { node: str(text), text: `${preview(change.unit)} × ${length}` };
}

const strings: fc.Arbitrary<Mutation> = fc.tuple(fc.nat(), stringChange).map(([pick, change]) => {
  let text = '';
  return treeMutation(
    (p) => `string ${p || '(body)'} := ${text}`,
    (root) => {
      const stringy = nodes(root).filter(({ node }) => isStringy(node));
      return stringy.length > 0 ? stringy : leaves(root);
    },
    pick,
    (node) => {
      const changed = changeString(node, change);
      text = changed.text;
      return changed.node;
    },
  );
});

// ---- bytes: invalid UTF-8, broken JSON text, nesting, size, content type ------------------------

const INVALID_UTF8: number[][] = [
  [0xc0, 0x80], // overlong U+0000
  [0xc0],
  [0xc1, 0xbf],
  [0xff],
  [0xfe],
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate encoded in UTF-8 (CESU-8)
  [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
  [0xe2, 0x82], // truncated sequence
  [0x80], // lone continuation byte
  [0xf8, 0x88, 0x80, 0x80, 0x80], // five-byte form
];

const NOT_JSON = [
  "{'a':1}",
  '{a:1}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":1,}',
  '[1,]',
  '{"a":01}',
  '{"a":+1}',
  '{"a":.5}',
  '{"a":1.}',
  '{"a":0x10}',
  '/* c */ {}',
  '{"a":"\u0001"}',
  '{"a":"line\nbreak"}',
  '{"a":"\\u00"}',
  '{"a":"\\x41"}',
  '"',
  '{',
  '}',
  'nul',
  '{"a" 1}',
  '{"a":1}{"b":2}',
];

const CONTENT_TYPES = [
  undefined,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/jsonx',
  'application/json-seq',
  'application/vnd.api+json',
  '*/*',
  '',
];

const rawOf = (d: Draft): Buffer => d.raw ?? Buffer.alloc(0);
/** A change to the bytes of the body; `apply` may return a label that says where it applied. */
function rawMutation(label: string, apply: (d: Draft) => string | Buffer | void): Mutation {
  const m: Mutation = {
    label,
    stage: 1,
    apply(d) {
      const said = apply(d);
      if (typeof said === 'string') m.label = said;
    },
  };
  return m;
}

const bytes: fc.Arbitrary<Mutation> = fc.oneof(
  // invalid UTF-8 inside a string value
  fc.tuple(fc.nat(), fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([pick, seq, position]) => {
    const hex = seq.map((b) => b.toString(16).padStart(2, '0')).join(' ');
    return treeMutation(
      (p) => `bytes ${p || '(body)'} holds ${hex}`,
      (root) => {
        const stringy = nodes(root).filter(({ node }) => node.t === 'str');
        return stringy.length > 0 ? stringy : leaves(root);
      },
      pick,
      (node) => {
        const text = node.t === 'str' ? node.text : '';
        const p = position % (text.length + 1);
        return { t: 'bytes', before: text.slice(0, p), bytes: seq, after: text.slice(p), s: node.s };
      },
    );
  }),
  // invalid UTF-8 anywhere in the text
  fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([seq, position]) =>
    rawMutation(`bytes ${seq.map((b) => b.toString(16)).join(' ')}`, (d) => {
      const raw = rawOf(d);
      const p = position % (raw.length + 1);
      d.raw = Buffer.concat([raw.subarray(0, p), Buffer.from(seq), raw.subarray(p)]);
      return `bytes ${seq.map((b) => b.toString(16)).join(' ')} at offset ${p}`;
    }),
  ),
  fc.constant(
    rawMutation(
      'UTF-8 byte order mark first',
      (d) => (d.raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), rawOf(d)])),
    ),
  ),
  fc.constant(
    rawMutation('body in UTF-16LE', (d) => {
      d.raw = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rawOf(d).toString('utf8'), 'utf16le')]);
    }),
  ),
  fc.nat().map((cut) =>
    rawMutation('truncated', (d) => {
      const raw = rawOf(d);
      d.raw = raw.subarray(0, cut % (raw.length + 1));
      return `truncated to ${d.raw.length} bytes`;
    }),
  ),
  fc
    .constantFrom(' x', '}', ',', '{}', '\u0000', ' // c', '\n{"a":1}')
    .map((tail) =>
      rawMutation(`trailing ${preview(tail)}`, (d) => (d.raw = Buffer.concat([rawOf(d), Buffer.from(tail)]))),
    ),
  fc.tuple(fc.constantFrom(64, 1_000, 10_000, 30_000), fc.constantFrom('[', '{"a":')).map(([depth, open]) =>
    rawMutation(`nested ${depth} deep with ${open}`, (d) => {
      const close = open === '[' ? ']' : '}';
      d.raw = Buffer.from(open.repeat(depth) + '1' + close.repeat(depth));
    }),
  ),
  fc.tuple(fc.constantFrom(64 * 1024 + 1, 100_000, 300_000), fc.boolean()).map(([size, chunked]) =>
    rawMutation(`padded to ${size} bytes${chunked ? ', chunked' : ''}`, (d) => {
      const raw = rawOf(d);
      d.raw = Buffer.concat([raw, Buffer.alloc(Math.max(0, size - raw.length), 0x20)]);
      d.chunked = chunked;
    }),
  ),
  fc
    .constantFrom(...NOT_JSON)
    .map((text) => rawMutation(`not JSON: ${preview(text)}`, (d) => (d.raw = Buffer.from(text)))),
  fc.constantFrom(...CONTENT_TYPES).map((type) =>
    rawMutation(`content-type ${type === undefined ? '(none)' : preview(type)}`, (d) => {
      d.contentType = type;
      d.raw ??= Buffer.from('{}');
    }),
  ),
  fc.constant(rawMutation('empty body', (d) => (d.raw = Buffer.alloc(0)))),
);

// ---- keys: unknown, duplicated, prototype keys, missing ----------------------------------------

const UNKNOWN_KEYS = [
  'x',
  'admin',
  'is_admin',
  'role',
  '',
  ' ',
  'AMOUNT',
  'amount ',
  '\u0000',
  '\ud800',
  'k'.repeat(1000),
  '$where',
  'a.b',
  '/',
  '~',
  '0',
];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];
const POLLUTING: Json[] = [
  obj([
    ['polluted', str('yes')],
    ['admin', lit('true')],
  ]),
  obj([['prototype', obj([['polluted', str('yes')]])]]),
  lit('null'),
  str('x'),
  num('1'),
  arr([]),
];
const smallValue = fc.constantFrom(...WRONG_TYPES);

function entryMutation(
  label: (pointer: string) => string,
  pick: number,
  change: (entries: [string, Json][]) => [string, Json][],
): Mutation {
  return treeMutation(label, objects, pick, (node) =>
    node.t === 'obj' ? { ...node, entries: change([...node.entries]) } : node,
  );
}

const insertAt = (entries: [string, Json][], position: number, entry: [string, Json]) => {
  entries.splice(position % (entries.length + 1), 0, entry);
  return entries;
};

const keys: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .tuple(fc.nat(), fc.constantFrom(...UNKNOWN_KEYS), smallValue, fc.nat())
    .map(([pick, key, value, position]) =>
      entryMutation(
        (p) => `unknown key ${preview(key)} in ${p || '(body)'}`,
        pick,
        (e) => insertAt(e, position, [key, value]),
      ),
    ),
  fc
    .tuple(fc.nat(), fc.nat(), fc.option(smallValue, { nil: undefined }), fc.boolean())
    .map(([pick, which, other, before]) =>
      entryMutation(
        (p) =>
          `duplicate key in ${p || '(body)'}${other ? ` (second value ${show(other)})` : ' (same value)'}`,
        pick,
        (e) => {
          if (e.length === 0) return e;
          const i = which % e.length;
          const [key, value] = e[i]!;
          e.splice(before ? i : i + 1, 0, [key, other ?? value]);
          return e;
        },
      ),
    ),
  fc
    .tuple(fc.nat(), fc.constantFrom(...PROTO_KEYS), fc.constantFrom(...POLLUTING), fc.nat())
    .map(([pick, key, value, position]) =>
      entryMutation(
        (p) => `key ${key} := ${show(value)} in ${p || '(body)'}`,
        pick,
        (e) => insertAt(e, position, [key, value]),
      ),
    ),
  fc.tuple(fc.nat(), fc.nat()).map(([pick, which]) =>
    entryMutation(
      (p) => `a key of ${p || '(body)'} left out`,
      pick,
      (e) => {
        if (e.length > 0) e.splice(which % e.length, 1);
        return e;
      },
    ),
  ),
);

// ---- path parameters -----------------------------------------------------------------------

const SEGMENTS = [
  '%00',
  'x%00',
  '%C0',
  '%C0%80',
  '%FF',
  '%E2%82',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%uD800',
  '%',
  '%%',
  '%zz',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '%20',
  '%E2%80%AE',
  '%F0%9F%98%80',
  'caf%C3%A9',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'null',
  '0',
  '-1',
  '1e400',
  '%5B%5D',
  '*',
];

const encodeAny = (text: string): string => {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80'; // a lone surrogate has no UTF-8: its CESU-8 bytes
  }
};

const segment: fc.Arbitrary<{ label: string; value: (valid: string) => string }> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SEGMENTS).map((s) => ({ label: s, value: () => s })) },
  fc
    .constantFrom('%00', '%C0', '%ED%A0%80', '%20', 'x')
    .map((suffix) => ({ label: `(valid)${suffix}`, value: (valid: string) => `${valid}${suffix}` })),
  fc.constantFrom(45, 256, 4_096, 8_000).map((n) => ({ label: `'1' × ${n}`, value: () => '1'.repeat(n) })),
  charsOf('[1-9A-HJ-NP-Za-km-z]', 32, 44).map((s) => ({ label: `random id ${s}`, value: () => s })),
  fc
    .string({ unit: anyCodePoint, minLength: 1, maxLength: 8 })
    .map((s) => ({ label: `encoded ${preview(s)}`, value: () => encodeAny(s) })),
);

const path = (target: Target): fc.Arbitrary<Mutation> =>
  fc.tuple(fc.nat(), segment).map(([pick, seg]) => {
    const name = target.params.length > 0 ? at(target.params, pick) : undefined;
    return {
      label: `path :${name} := ${seg.label}`,
      stage: 2,
      apply(d) {
        if (name !== undefined) d.params[name] = seg.value(d.params[name] ?? '');
      },
    };
  });

// ---- query ---------------------------------------------------------------------------------

const QUERY_VALUES = [
  '0',
  '101',
  '-1',
  '1e2',
  '1.5',
  'abc',
  '',
  '%00',
  '%C0',
  '%ED%A0%80',
  '9'.repeat(400),
  '+1',
  '%201',
  '0x10',
  'Infinity',
  'NaN',
  'null',
  '%5B%5D',
  '1%00',
];
const QUERY_KEYS = ['x', '__proto__', 'constructor', 'limit[]', 'limit[a]', '%00', '', 'limit%00'];

const query: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.nat(), fc.constantFrom(...QUERY_VALUES)).map(([pick, value]) => ({
    label: `query value := ${preview(value)}`,
    stage: 2 as const,
    apply(d: Draft) {
      if (d.query.length === 0) d.query.push(['limit', value]);
      else at(d.query, pick)[1] = value;
    },
  })),
  fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.constantFrom(...QUERY_VALUES)).map(([key, value]) => ({
    label: `query ${preview(key)}=${preview(value)} added`,
    stage: 2 as const,
    apply: (d: Draft) => void d.query.push([key, value]),
  })),
  fc.constantFrom(...QUERY_VALUES).map((value) => ({
    label: `query key repeated, second value ${preview(value)}`,
    stage: 2 as const,
    apply(d: Draft) {
      d.query.push([d.query[0]?.[0] ?? 'limit', value]);
    },
  })),
);

// ---- headers: the idempotency key, the credential ---------------------------------------------

const IDEMPOTENCY_HEADERS = ['', ' ', 'a', 'x'.repeat(255), 'x'.repeat(256), 'x'.repeat(8_000), 'é', 'ÿþ'];

function credentialChanges(
  target: Target,
): fc.Arbitrary<{ label: string; value: (valid: string) => string | undefined }> {
  return fc.constantFrom(
    { label: 'no credential', value: () => undefined },
    { label: '"Bearer"', value: () => 'Bearer' },
    { label: '"Bearer x"', value: () => 'Bearer x' },
    { label: 'lower-case scheme', value: (v: string) => v.replace(/^Bearer/, 'bearer') },
    { label: 'Basic scheme', value: (v: string) => v.replace(/^Bearer/, 'Basic') },
    { label: 'credential and a second word', value: (v: string) => `${v} extra` },
    { label: 'credential truncated', value: (v: string) => v.slice(0, -5) },
    {
      label: 'last character changed',
      value: (v: string) => v.slice(0, -1) + (v.endsWith('0') ? '1' : '0'),
    },
    { label: 'the other kind of credential', value: () => `Bearer ${target.otherCredential}` },
    { label: 'credential × 8000', value: () => `Bearer ${'a'.repeat(8_000)}` },
    {
      label: 'JWT with alg none',
      value: () => 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4IiwiYXVkIjoidG9rZW5vcHMtb3BlcmF0b3IifQ.',
    },
    { label: 'latin-1 credential', value: () => 'Bearer ÿé' },
  );
}

const headers = (target: Target): fc.Arbitrary<Mutation> => {
  const options: fc.Arbitrary<Mutation>[] = [
    fc.constantFrom('x'.repeat(1_000), '../', 'é', '').map((id) => ({
      label: `x-request-id ${preview(id)}`,
      stage: 2 as const,
      apply: (d: Draft) => void (d.headers['x-request-id'] = id),
    })),
  ];
  if (target.idempotent)
    options.push(
      fc.constantFrom(...IDEMPOTENCY_HEADERS).map((value) => ({
        label: `idempotency-key header ${preview(value)}`,
        stage: 2 as const,
        apply: (d: Draft) => void (d.headers['idempotency-key'] = value),
      })),
    );
  if (target.auth !== 'none')
    options.push(
      credentialChanges(target).map((change) => ({
        label: `authorization: ${change.label}`,
        stage: 2 as const,
        apply(d: Draft) {
          const value = change.value(d.headers.authorization ?? '');
          if (value === undefined) delete d.headers.authorization;
          else d.headers.authorization = value;
        },
      })),
    );
  return fc.oneof(...options);
};

/** One to three mutations of a family, for an endpoint (one, three times in four). */
export function mutationsOf(family: Family, target: Target): fc.Arbitrary<Mutation[]> {
  const one: Record<Family, () => fc.Arbitrary<Mutation>> = {
    types: () => types,
    numbers: () => numbers,
    strings: () => strings,
    bytes: () => bytes,
    keys: () => keys,
    path: () => path(target),
    query: () => query,
    headers: () => headers(target),
  };
  const mutation = one[family]();
  // Mostly one, so that what fails is what was broken; sometimes several at once.
  return fc.oneof(
    { weight: 3, arbitrary: mutation.map((m) => [m]) },
    { weight: 1, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 3 }) },
  );
}
