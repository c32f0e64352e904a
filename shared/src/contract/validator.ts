import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import Big from 'big.js';
import { parseAmount } from '../money';
import {
  ERROR_CATALOGUE,
  ERROR_CODES,
  ServiceError,
  validationError,
  type ValidationDetail,
} from '../errors';
import { AmountInput, AmountNumber, AmountString } from './schemas';
import { CONTRACT_SCHEMAS } from './agent-openapi';
import { OPERATOR_SCHEMAS } from './operator-openapi';
import type { ContractDescription, Operation } from './openapi';
import { VARIANT_SCHEMAS } from './variant-schemas';
import { unstorableText, utf8Bytes } from './text';

const SCHEMAS = { ...CONTRACT_SCHEMAS, ...OPERATOR_SCHEMAS, ...VARIANT_SCHEMAS };
/** The name of a schema the validator knows: every named schema of the three documents. */
export type SchemaName = keyof typeof SCHEMAS;
// A name is one schema in every document that names it.
for (const documents of [CONTRACT_SCHEMAS, OPERATOR_SCHEMAS, VARIANT_SCHEMAS] as Record<string, object>[])
  for (const [name, schema] of Object.entries(documents))
    if ((SCHEMAS as Record<string, object>)[name] !== schema)
      throw new Error(`the schema ${name} is two schemas in the documents`);

/**
 * Compiles the contract schemas once (ajv strict mode) and turns a failed validation into the
 * contract's errors: `invalid_amount` when only amount fields fail, otherwise `validation_error` with
 * one `{path, issue}` per failure, `path` a JSON Pointer to the failing field. Before any schema, every
 * string of the input (values and keys) must be text the log can store (text.ts).
 */
function makeAjv(coerceTypes: boolean): Ajv2020 {
  // allowUnionTypes: amounts are a number or a decimal string.
  const ajv = new Ajv2020({
    strict: true,
    allowUnionTypes: true,
    allErrors: true,
    verbose: true,
    useDefaults: true,
    coerceTypes,
  });
  addFormats(ajv);
  // multipleOf in exact decimal: 1.1 is a multiple of 0.000001, which a float division denies.
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    errors: true,
    validate: function multipleOf(this: unknown, step: number, data: number): boolean {
      if (!Number.isFinite(data) || new Big(String(data)).mod(new Big(String(step))).eq(0)) return true;
      (multipleOf as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: 'multipleOf', message: `must be multiple of ${step}`, params: { multipleOf: step } },
      ];
      return false;
    },
  });
  ajv.addKeyword({
    keyword: 'x-amount',
    schemaType: 'boolean',
    errors: true,
    validate: function amount(
      this: unknown,
      enabled: boolean,
      data: unknown,
      _parent?: unknown,
      at?: { parentDataProperty?: string | number },
    ): boolean {
      if (!enabled) return true;
      try {
        // The message names the field (`The daily_limit is negative`), an item of a list `amount`.
        const field = typeof at?.parentDataProperty === 'string' ? at.parentDataProperty : 'amount';
        parseAmount(data, field);
        return true;
      } catch (err) {
        (amount as unknown as { errors: Partial<ErrorObject>[] }).errors = [
          {
            keyword: 'x-amount',
            message: err instanceof ServiceError ? err.message : 'is not a valid amount',
            params: {},
          },
        ];
        return false;
      }
    },
  });
  ajv.addKeyword({
    keyword: 'x-max-utf8-bytes',
    type: 'string',
    schemaType: 'number',
    errors: true,
    validate: function maxBytes(this: unknown, max: number, data: string): boolean {
      if (utf8Bytes(data) <= max) return true;
      (maxBytes as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: 'x-max-utf8-bytes', message: `must be at most ${max} bytes in UTF-8`, params: { max } },
      ];
      return false;
    },
  });
  return ajv;
}

const bodies = makeAjv(false);
// Query strings arrive as text: the query schemas coerce "20" to 20.
const queries = makeAjv(true);
const compiled = new Map<SchemaName, ValidateFunction>();

function validatorFor(name: SchemaName): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    fn = (name.endsWith('Query') ? queries : bodies).compile(SCHEMAS[name]);
    compiled.set(name, fn);
  }
  return fn;
}

/** Points at the field an ajv error is about (for `required`, the missing field itself). */
function pointerOf(error: ErrorObject): string {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const child = params.missingProperty ?? params.additionalProperty;
  return child === undefined ? error.instancePath : `${error.instancePath}/${escapePointer(child)}`;
}

const escapePointer = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

function issueOf(error: ErrorObject): string {
  const params = error.params as { additionalProperty?: string; allowedValues?: unknown[] };
  if (error.keyword === 'additionalProperties') return `unknown property "${params.additionalProperty}"`;
  if (error.keyword === 'enum') return `must be one of ${JSON.stringify(params.allowedValues)}`;
  return error.message ?? error.keyword;
}

const AMOUNT_SCHEMAS = new Set<unknown>([AmountInput, AmountNumber, AmountString]);

/** Whether an error is an amount schema's own (its keyword, or a keyword of the schema or its branches). */
const ofAmountSchema = (error: ErrorObject): boolean =>
  error.keyword === 'x-amount' ||
  AMOUNT_SCHEMAS.has(error.parentSchema) ||
  (error.parentSchema as Record<string, unknown> | undefined)?.['x-amount'] === true;

/** The errors about amount fields: every error at a field where an amount schema failed. */
function amountErrors(errors: ErrorObject[]): (error: ErrorObject) => boolean {
  const fields = new Set(errors.filter(ofAmountSchema).map((e) => e.instancePath));
  return (error) => fields.has(error.instancePath);
}

/** Validates `data` against the named schema (applying defaults in place) or throws the contract's error. */
export function validate<T>(name: SchemaName, data: unknown): T {
  const unstorable = unstorableText(data);
  if (unstorable.length > 0) throw validationError(unstorable);
  const fn = validatorFor(name);
  if (fn(data)) return data as T;
  const errors = (fn.errors ?? []).filter((e) => e.keyword !== 'if');
  if (errors.length > 0 && errors.every(amountErrors(errors))) {
    const amountFailure = errors.find((e) => e.keyword === 'x-amount') ?? errors[0]!;
    const field = pointerOf(amountFailure).split('/').pop() || 'amount';
    throw new ServiceError(
      'invalid_amount',
      amountFailure.keyword === 'x-amount' ? amountFailure.message : `The ${field} is not a number.`,
    );
  }
  const details: ValidationDetail[] = errors.map((e) => ({ path: pointerOf(e), issue: issueOf(e) }));
  throw validationError(dedupe(details));
}

/** Checks a response against its schema; returns the failures (empty when it conforms). */
export function responseViolations(name: SchemaName, data: unknown): ValidationDetail[] {
  const fn = validatorFor(name);
  if (fn(data)) return [];
  return (fn.errors ?? []).map((e) => ({ path: pointerOf(e), issue: issueOf(e) }));
}

function dedupe(details: ValidationDetail[]): ValidationDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.path}\u0000${d.issue}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * How an answer to an operation differs from what its row says: a status it does not list, a body its
 * schema refuses, an error code it does not list for that status (as the contract names its codes,
 * in its error body: `{"error": code}` or `{"error": {"code"}}`). Empty when it holds.
 */
export function answerViolations<Name extends string, TagName extends string>(
  op: Operation<Name, TagName>,
  contract: Pick<ContractDescription<Name, TagName>, 'errorBody' | 'codeName'>,
  status: number,
  body: unknown,
): ValidationDetail[] {
  const where = `${op.method.toUpperCase()} ${op.path}`;
  if (status === (op.status ?? 200)) return responseViolations(op.response as unknown as SchemaName, body);
  if (status === 202 && op.proposes) return responseViolations('Proposal' as SchemaName, body);
  const codes = (op.errors ?? ERROR_CODES)
    .filter((c) => ERROR_CATALOGUE[c].status === status)
    .map(contract.codeName);
  if (codes.length === 0) return [{ path: '', issue: `status ${status} is not documented for ${where}` }];
  const found = responseViolations(contract.errorBody as unknown as SchemaName, body);
  const error = (body as { error?: unknown } | null)?.error;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : error;
  if (!codes.includes(code as string))
    found.push({ path: '/error', issue: `${String(code)} is not documented for ${where} (${status})` });
  return found;
}
