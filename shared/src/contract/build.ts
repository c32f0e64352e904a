/**
 * JSON Schemas said once: `object({...})` is an object schema whose listed properties are all required
 * but those named optional, and no other property is allowed; `openObject({...})` the same for an
 * object that may carry others (the agent contract's bodies and answers, which spec/agent-api.md leaves
 * open). The result is a plain schema constant (the validator compiles it, the OpenAPI documents carry
 * it) whose type FromSchema reads as before.
 */
import type { JSONSchema } from 'json-schema-to-ts';

type Properties = Readonly<Record<string, JSONSchema>>;

/** The open object schema `openObject(properties, optional, more)` builds. */
export type OpenObjectSchema<P extends Properties, O extends keyof P, M extends object = object> = {
  readonly type: 'object';
  readonly properties: P;
  readonly required: readonly Exclude<keyof P & string, O>[];
} & M;

/** The object schema `object(properties, optional, more)` builds: the open one, closed. */
export type ObjectSchema<
  P extends Properties,
  O extends keyof P,
  M extends object = object,
> = OpenObjectSchema<P, O, { readonly additionalProperties: false } & M>;

/**
 * An object schema: `properties`, each required unless named in `optional`, no other property;
 * `more` adds keywords (a description, a condition).
 */
export function object<
  const P extends Properties,
  const O extends keyof P & string = never,
  const M extends object = object,
>(properties: P, optional: readonly O[] = [], more?: M): ObjectSchema<P, O, M> {
  return build(properties, optional, { additionalProperties: false, ...more }) as ObjectSchema<P, O, M>;
}

/** As `object`, but other properties are allowed (and ignored by the service). */
export function openObject<
  const P extends Properties,
  const O extends keyof P & string = never,
  const M extends object = object,
>(properties: P, optional: readonly O[] = [], more?: M): OpenObjectSchema<P, O, M> {
  return build(properties, optional, more) as OpenObjectSchema<P, O, M>;
}

function build(properties: Properties, optional: readonly string[], more: object | undefined): unknown {
  const required = Object.keys(properties).filter((key) => !optional.includes(key));
  return { type: 'object', properties, ...(required.length > 0 && { required }), ...more };
}
