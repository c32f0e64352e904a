/**
 * A tag of a contract said in one file: a row is keyed by its operation id, carries its tag's name and
 * names the tag's schemas, or the module that says it does not load; tags composed into a document
 * say each schema and each path parameter once; the document they make says each schema once.
 */
import {
  buildOpenApiDocument,
  contractTag,
  operationsOf,
  pathParametersOf,
  schemasOf,
  tagsOf,
  type Operation,
} from './openapi';

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

describe('the document a contract makes', () => {
  const Entry = { type: 'object', properties: { id: Other } } as const;
  const List = { type: 'object', properties: { entries: { type: 'array', items: Entry } } } as const;
  const ListQuery = { type: 'object', properties: { limit: { type: 'integer' } } } as const;
  const Params = { type: 'object', properties: { thing: Other } } as const;
  const Failure = { type: 'object' } as const;
  const doc = buildOpenApiDocument({
    title: 'Things',
    serverUrl: '/things',
    schemas: { Entry, List, ListQuery, Params, Failure },
    operations: [
      row({ path: '/things/{thing}', response: 'List', query: 'ListQuery', description: 'Lists.' }),
    ],
    errorBody: 'Failure',
    codeName: (code) => code,
    pathParameters: 'Params',
    tags: [{ name: 'things', description: 'Things.' }],
    rateLimit: { setting: 'THINGS_PER_MINUTE', whose: 'the caller' },
  });
  const op = doc.paths['/things/{thing}']!.get as {
    description: string;
    parameters: { name: string; in: string; schema: object }[];
  };

  it('references a named schema held in another, so it is said once', () => {
    expect(doc.components.schemas.List).toEqual({
      type: 'object',
      properties: { entries: { type: 'array', items: { $ref: '#/components/schemas/Entry' } } },
    });
    expect(doc.components.schemas.Entry).toEqual(Entry);
  });

  it('spells a query and the path parameters as parameters, not as components', () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual(['Entry', 'Failure', 'List']);
    expect(op.parameters).toEqual([
      { name: 'thing', in: 'path', required: true, schema: Other },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer' } },
    ]);
  });

  it('says what each operation does, whom to ask, and the license', () => {
    expect(op.description).toBe('Lists.');
    expect(doc.info.contact.name).not.toBe('');
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
  });
});
