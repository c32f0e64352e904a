/**
 * A tag of a contract said in one file: a row is keyed by its operation id, carries its tag's name and
 * names the tag's schemas, or the module that says it does not load; tags composed into a document
 * say each schema and each path parameter once.
 */
import { contractTag, operationsOf, pathParametersOf, schemasOf, tagsOf, type Operation } from './openapi';

const Thing = { type: 'object', additionalProperties: false } as const;
const Other = { type: 'string' } as const;
const row = (more: Partial<Operation> = {}): Operation => ({
  method: 'get',
  path: '/things',
  tag: 'things',
  operationId: 'listThings',
  summary: 'The things.',
  response: 'Thing',
  ...more,
});
// The types refuse each of these too; the casts let the check at load time be seen.
const tag = (operations: Record<string, Operation>, schemas: Record<string, object> = { Thing }) =>
  contractTag({ name: 'things', description: 'Things.', schemas, operations } as never);

describe('a tag of a contract', () => {
  it('holds rows keyed by their operation id, of its own tag, naming its own schemas', () => {
    const things = tag({ listThings: row() });
    expect((things.operations as Record<string, Operation>).listThings).toEqual(row());
    expect(operationsOf([things])).toEqual([row()]);
    expect(tagsOf([things])).toEqual([{ name: 'things', description: 'Things.' }]);
  });

  it('refuses a row keyed by another id, of another tag, or naming a schema it does not hold', () => {
    expect(() => tag({ things: row() })).toThrow('things: listThings keyed things');
    expect(() => tag({ listThings: row({ tag: 'stuff' }) })).toThrow('things: listThings tagged stuff');
    expect(() => tag({ listThings: row({ request: 'Other' }) })).toThrow(
      'things: listThings names Other, not a schema of the tag',
    );
  });

  it('composes with others into one set of schemas and of path parameters, each said once', () => {
    const a = tag({}, { Thing });
    const b = tag({}, { Thing, Other });
    expect(schemasOf([a, b])).toEqual({ Thing, Other });
    expect(() => schemasOf([a, tag({}, { Thing: Other })])).toThrow('the schema Thing is said twice');
    const withParam = (schema: object) => ({ ...a, parameters: { thing: schema } });
    expect(pathParametersOf([withParam(Other), withParam(Other)])).toEqual({
      type: 'object',
      properties: { thing: Other },
    });
    expect(() => pathParametersOf([withParam(Other), withParam(Thing)])).toThrow(
      'the path parameter thing is said twice',
    );
  });
});
