import { object, openObject } from './build';
import { SimulateResponse, TransferRequest } from './agent/intents';
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

describe('openObject(): an object schema of the agent contract, which allows other properties', () => {
  it('requires every property but the optional ones, and says nothing of others', () => {
    const schema = openObject({ a: { type: 'string' }, b: { type: 'integer' } }, ['b'], { description: 'd' });
    expect(schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['a'],
      description: 'd',
    });
    expect('additionalProperties' in schema).toBe(false);
  });

  it('builds the agent contract’s bodies as the spec lists them', () => {
    expect(TransferRequest.required).toEqual(['to', 'amount', 'idempotency_key']);
    expect('additionalProperties' in TransferRequest).toBe(false);
    expect(SimulateResponse.required).toEqual([
      'would_succeed',
      'daily_remaining',
      'hourly_tx_remaining',
      'estimated_fee',
    ]);
  });
});
