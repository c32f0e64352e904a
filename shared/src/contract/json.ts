/**
 * JSON at the service boundary without float loss. A number is read from its source text: one that
 * a JavaScript number holds exactly becomes a number; one it cannot (too many significant digits,
 * out of range) stays the string the caller wrote, so an amount keeps every digit and a field that
 * must be a number fails validation instead of silently changing. Big values are written back as
 * JSON numbers from their exact decimal text.
 */
import Big from 'big.js';
import { isSafeNumber, parse, stringify } from 'lossless-json';
import { validationError } from '../errors';

export function parseJson(text: string): unknown {
  try {
    return parse(text, null, (lexeme) => (isSafeNumber(lexeme) ? Number(lexeme) : lexeme));
  } catch (err) {
    const reason = err instanceof Error ? err.message : 'unreadable';
    throw validationError(
      [{ path: '', issue: `the body is not valid JSON: ${reason}` }],
      'The request body is not valid JSON.',
    );
  }
}

const bigAsNumber = {
  test: (value: unknown) => value instanceof Big,
  stringify: (value: unknown) => (value as Big).toFixed(),
};

export function stringifyJson(value: unknown): string {
  return stringify(value, null, undefined, [bigAsNumber]) ?? 'null';
}
