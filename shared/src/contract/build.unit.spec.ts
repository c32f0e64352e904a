import { object } from './build';
import { LimitsInputSchema } from './operator/common';
import { ChallengeRequest } from './operator/sign-in';

describe('object(): a closed object schema said once', () => {
  it('requires every property but the optional ones, and allows no other', () => {
    expect(object({ a: { type: 'string' }, b: { type: 'integer' } }, ['b'])).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['a'],
      additionalProperties: false,
    });
    expect(ChallengeRequest.required).toEqual(['wallet']);
  });

  it('leaves `required` out when every property is optional, and adds the keywords given', () => {
    expect('required' in LimitsInputSchema).toBe(false);
    expect(object({ a: { type: 'string' } }, [], { description: 'd', minProperties: 1 })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
      description: 'd',
      minProperties: 1,
    });
  });
});
