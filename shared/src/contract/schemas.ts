/**
 * The building blocks of every contract's schemas (JSON Schema 2020-12): identifiers, amounts, the
 * idempotency key, times and texts of answers, the error envelope, and `Shape`, the type a schema
 * validates to. The agent contract's schemas are in agent/, one file per tag; the operator surface's
 * in operator/; the variant's in variant-schemas.ts. The validator (validator.ts) compiles them with
 * ajv in strict mode and the OpenAPI documents are assembled from the same constants, so a contract is
 * written once.
 *
 * An amount is said in standard JSON Schema, so generic tools (OpenAPI clients, MCP hosts, test
 * generators) see the rule: `anyOf` a non-negative number that is a multiple of 0.000001, or a decimal
 * string with at most 6 decimals. The validator reads numbers from their source text (never through a
 * float) and checks `multipleOf` in exact decimal; the `x-amount` keyword adds what JSON Schema cannot
 * say of a string (the u64 range of base units) and names the failure. A failure of an amount field is
 * `invalid_amount`; every other failure is `validation_error`.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { ERROR_CODES } from '../errors';
import { openObject } from './build';

// ---- building blocks -------------------------------------------------------------------------

/** Opaque base58 identifier of 32 to 44 characters (mint, recipient, program). */
export const Identifier = {
  type: 'string',
  minLength: 32,
  maxLength: 44,
  pattern: '^[1-9A-HJ-NP-Za-km-z]+$',
} as const;

/** An amount in a request: a JSON number or a decimal string (which keeps every digit). */
export const AmountNumber = {
  type: 'number',
  minimum: 0,
  // The u64 of base units (18446744073709.551615) as near as a float gets; x-amount checks it exactly.
  maximum: 18446744073709.55,
  multipleOf: 0.000001,
} as const;
export const AmountString = {
  type: 'string',
  maxLength: 64,
  pattern: '^[0-9]+(\\.[0-9]{1,6}0*)?$',
} as const;
export const AmountInput = {
  anyOf: [AmountNumber, AmountString],
  'x-amount': true,
  description:
    'Human units, >= 0, at most 6 decimals (at most 18446744073709.551615). A decimal string ("12.5") is accepted too.',
} as const;

/** An amount in a response (always a JSON number, written from its exact decimal). */
export const AmountOutput = { type: 'number', minimum: 0 } as const;
/**
 * An answer's amounts: its properties that are JSON numbers (AmountOutput, a rate; a count is an
 * integer). A spend keeps them as exact text under its idempotency key and answers them as numbers.
 */
export const amountFields = (schema: { properties?: Record<string, unknown> }): string[] =>
  Object.entries(schema.properties ?? {})
    .filter(([, field]) => {
      const type = (field as { type?: unknown }).type;
      return type === 'number' || (Array.isArray(type) && type.includes('number'));
    })
    .map(([name]) => name);

/** A count in an answer. */
export const Count = { type: 'integer', minimum: 0 } as const;

export const IdempotencyKey = { type: 'string', minLength: 1, maxLength: 255 } as const;
/** The memo travels to the chain, whose memo counts bytes: at most 200 bytes of UTF-8. */
export const MEMO_MAX_BYTES = 200;

/** A time in an answer (ISO 8601), and a text. */
export const Timestamp = { type: 'string', format: 'date-time' } as const;
export const Text = { type: 'string' } as const;

// ---- errors ----------------------------------------------------------------------------------

/** The failures of a validation_error, one per failing field (both contracts' error bodies). */
export const ErrorDetails = {
  type: 'array',
  items: openObject({
    path: { type: 'string', description: 'JSON Pointer to the failing field.' },
    issue: { type: 'string' },
  }),
} as const;

/**
 * The fields of every error, whatever its envelope: its code (one of `codes`, as the contract names
 * them), a message, and on validation_error the details.
 */
export const errorFields = <const Codes extends readonly string[]>(codes: Codes) =>
  ({
    code: { type: 'string', enum: codes },
    message: { type: 'string' },
    details: ErrorDetails,
  }) as const;

const { code: errorCode, ...errorText } = errorFields(ERROR_CODES);

export const ErrorBody = openObject({ error: errorCode, ...errorText }, ['details'], {
  // `details` is present only on validation_error.
  if: { properties: { error: { const: 'validation_error' } } },
  then: { properties: { details: ErrorDetails }, required: ['details'] },
  else: { not: { properties: { details: ErrorDetails }, required: ['details'] } },
});

// ---- the types the handlers see (derived from the schemas, never written twice) ----------------

type AmountValue = number | string;
/** The type a schema validates to (amounts as the number or text they arrive as); every contract's. */
export type Shape<S extends JSONSchema> = FromSchema<
  S,
  { deserialize: [{ pattern: { 'x-amount': true }; output: AmountValue }] }
>;

export type ErrorBodyShape = Shape<typeof ErrorBody>;

/** The named fields of a shape, without the index signature an open object's shape carries. */
export type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };
