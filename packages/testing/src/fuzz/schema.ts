/** The JSON Schema subset the contract uses, as the generator reads it. */
export interface Schema {
  type?: string | readonly string[];
  properties?: Readonly<Record<string, Schema>>;
  required?: readonly string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  anyOf?: readonly Schema[];
  enum?: readonly unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  'x-amount'?: boolean;
}
