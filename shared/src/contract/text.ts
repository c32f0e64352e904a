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

/** Every string in `value` that cannot be stored, each with a JSON Pointer to it (keys: the member). */
export function unstorableText(
  value: unknown,
  path = '',
  found: ValidationDetail[] = [],
): ValidationDetail[] {
  if (typeof value === 'string') {
    const issue = textIssue(value);
    if (issue) found.push({ path, issue });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unstorableText(item, `${path}/${i}`, found));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}/${escapePointer(key)}`;
      const issue = textIssue(key);
      if (issue) found.push({ path: at, issue: `has a property name that ${issue}` });
      unstorableText(item, at, found);
    }
  }
  return found;
}

/** Bytes of `text` in UTF-8 (what the chain's memo and most byte limits count). */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
