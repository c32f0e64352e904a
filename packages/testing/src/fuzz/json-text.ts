/**
 * JSON as the fuzz suite writes it: a tree of JSON *text*, not of values, so a request can say what
 * `JSON.stringify` never would: a number lexeme like `1e400` or `-0`, a key twice, a string holding
 * bytes that are not UTF-8. Each node may remember the schema it was generated from, so a mutation
 * can aim at the numbers, the strings or the required keys of a request.
 */
import type { Schema } from './schema';

export type Json =
  | { t: 'obj'; entries: [key: string, value: Json][]; s?: Schema }
  | { t: 'arr'; items: Json[]; s?: Schema }
  /** `text`: the JS string; written with JSON.stringify (lone surrogates and U+0000 become `\uXXXX`). */
  | { t: 'str'; text: string; s?: Schema }
  /** `raw`: the number lexeme exactly as sent (`1e400`, `-0`, `0.0000001`). */
  | { t: 'num'; raw: string; s?: Schema }
  | { t: 'lit'; raw: 'true' | 'false' | 'null'; s?: Schema }
  /** A string whose content is `before`, then raw bytes (invalid UTF-8), then `after`. */
  | { t: 'bytes'; before: string; bytes: number[]; after: string; s?: Schema };

export const str = (text: string): Json => ({ t: 'str', text });
export const num = (raw: string): Json => ({ t: 'num', raw });
export const lit = (raw: 'true' | 'false' | 'null'): Json => ({ t: 'lit', raw });
export const obj = (entries: [string, Json][]): Json => ({ t: 'obj', entries });
export const arr = (items: Json[]): Json => ({ t: 'arr', items });

/** A plain JSON value as a tree (numbers keep their JS text; use `num` for any other lexeme). */
export function fromValue(value: unknown): Json {
  if (value === null) return lit('null');
  if (typeof value === 'boolean') return lit(value ? 'true' : 'false');
  if (typeof value === 'number') return num(String(value));
  if (typeof value === 'string') return str(value);
  if (Array.isArray(value)) return arr(value.map(fromValue));
  if (typeof value === 'object')
    return obj(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromValue(v)]));
  throw new Error(`no JSON for ${typeof value}`);
}

const quoted = (text: string): string => JSON.stringify(text);

function write(node: Json, out: (string | Buffer)[]): void {
  switch (node.t) {
    case 'obj':
      out.push('{');
      node.entries.forEach(([k, v], i) => {
        if (i > 0) out.push(',');
        out.push(quoted(k), ':');
        write(v, out);
      });
      out.push('}');
      return;
    case 'arr':
      out.push('[');
      node.items.forEach((v, i) => {
        if (i > 0) out.push(',');
        write(v, out);
      });
      out.push(']');
      return;
    case 'str':
      out.push(quoted(node.text));
      return;
    case 'num':
    case 'lit':
      out.push(node.raw);
      return;
    case 'bytes':
      out.push(quoted(node.before).slice(0, -1), Buffer.from(node.bytes), quoted(node.after).slice(1));
      return;
  }
}

/** The request body as bytes on the wire. */
export function serialize(node: Json): Buffer {
  const out: (string | Buffer)[] = [];
  write(node, out);
  return Buffer.concat(out.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
}

/** Every node in document order (the root first), with its JSON Pointer. */
export function nodes(root: Json): { node: Json; pointer: string }[] {
  const all: { node: Json; pointer: string }[] = [];
  const walk = (node: Json, pointer: string) => {
    all.push({ node, pointer });
    if (node.t === 'obj')
      node.entries.forEach(([k, v]) => walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
    else if (node.t === 'arr') node.items.forEach((v, i) => walk(v, `${pointer}/${i}`));
  };
  walk(root, '');
  return all;
}

/** A copy of `root` with `target` (compared by identity) replaced by `replace(target)`. */
export function replaceNode(root: Json, target: Json, replace: (n: Json) => Json): Json {
  if (root === target) return replace(root);
  if (root.t === 'obj')
    return { ...root, entries: root.entries.map(([k, v]) => [k, replaceNode(v, target, replace)]) };
  if (root.t === 'arr') return { ...root, items: root.items.map((v) => replaceNode(v, target, replace)) };
  return root;
}
