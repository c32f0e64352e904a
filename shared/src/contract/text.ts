/**
 * Text the service can store. PostgreSQL refuses U+0000 in text and JSONB, and a lone UTF-16
 * surrogate has no UTF-8 form at all; either one reaching the log would fail the write (a 500) or,
 * worse, half of it. Every string a request carries (values and object keys, at any depth; bodies,
 * path parameters and queries) is checked here, at the contract check, and refused as
 * `validation_error` pointing at the string.
 */
import type { ValidationDetail } from '../errors';

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored, or undefined when it can. */
export function textIssue(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain U+0000 (NUL)';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (it has a lone surrogate)';
  return undefined;
}

const escapePointer = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Every string in `value` that cannot be stored, each with a JSON Pointer to it (for a property name,
 * its member). Iterative: any depth a JSON parser returns is walked without growing the call stack.
 */
export function unstorableText(value: unknown): ValidationDetail[] {
  const found: ValidationDetail[] = [];
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === 'string') {
      const issue = textIssue(item);
      if (issue) found.push({ path, issue });
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], `${path}/${i}`]);
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i]!;
        const at = `${path}/${escapePointer(key)}`;
        const issue = textIssue(key);
        if (issue) found.push({ path: at, issue: `has a property name that ${issue}` });
        pending.push([member, at]);
      }
    }
  }
  return found;
}

/** Bytes of `text` in UTF-8 (what the chain's memo and most byte limits count). */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
