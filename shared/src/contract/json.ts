/**
 * JSON at the service boundary without float loss. A number is read from its source text: one that
 * a JavaScript number holds exactly becomes a number; one it cannot (too many significant digits,
 * out of range) stays the string the caller wrote, so an amount keeps every digit and a field that
 * must be a number fails validation instead of silently changing. Big values are written back as
 * JSON numbers from their exact decimal text.
 */
import Big from 'big.js';
import { randomBytes } from 'node:crypto';
import { isSafeNumber, parse } from 'lossless-json';
import { validationError } from '../errors';
import { unstorableText } from './text';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a body in UTF-8; invalid UTF-8 is refused, never replaced by U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw validationError(
      [{ path: '', issue: 'the body is not valid UTF-8' }],
      'The request body is not valid UTF-8.',
    );
  }
}

/**
 * Parses a JSON text. Malformed JSON is `validation_error` at the root; a string anywhere in it that
 * cannot be stored (U+0000, a lone surrogate: see text.ts) is `validation_error` at that string.
 */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = parse(text, null, (lexeme) => (isSafeNumber(lexeme) ? Number(lexeme) : lexeme));
  } catch (err) {
    const reason = err instanceof Error ? err.message : 'unreadable';
    throw validationError(
      [{ path: '', issue: `the body is not valid JSON: ${reason}` }],
      'The request body is not valid JSON.',
    );
  }
  const unstorable = unstorableText(value);
  if (unstorable.length > 0) throw validationError(unstorable);
  return value;
}

// Big values travel through the native JSON.stringify as marked strings, then lose their quotes:
// exact decimal text, at native speed. The marker is 128 random bits drawn once per process and never
// appears in any output, so no string a caller sent can pass for one. (The replacer reads the
// holder's value: Big's own toJSON runs first.)
const MARK = `~${randomBytes(16).toString('hex')}~`;
const MARKED = new RegExp(`"${MARK}(-?[0-9.]+)"`, 'g');

function markBig(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Big ? `${MARK}${raw.toFixed()}` : value;
}

export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value, markBig) ?? 'null';
  return text.includes(MARK) ? text.replace(MARKED, '$1') : text;
}
