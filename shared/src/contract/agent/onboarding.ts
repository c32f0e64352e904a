/** The agent contract's onboarding (spec/agent-api.md): an invitation code for an API key, shown once. */
import type { JSONSchema } from 'json-schema-to-ts';
import { object } from '../build';
import { contractTag } from '../openapi';
import type { Shape } from '../schemas';

export const RegisterRequest = object({
  invitation_code: {
    type: 'string',
    minLength: 1,
    maxLength: 512,
    description: 'The one-time code the operator gave.',
  },
});

export const RegisterResponse = {
  type: 'object',
  properties: { agent_wallet_pda: { type: 'string' }, api_key: { type: 'string' } },
  required: ['agent_wallet_pda', 'api_key'],
} as const satisfies JSONSchema;

export const AGENT_ONBOARDING = contractTag({
  name: 'onboarding',
  description: 'Register with an invitation code.',
  schemas: { RegisterRequest, RegisterResponse },
  operations: {
    register: {
      method: 'post',
      path: '/register',
      tag: 'onboarding',
      operationId: 'register',
      summary: 'Exchange a one-time invitation code for an API key (shown once).',
      request: 'RegisterRequest',
      response: 'RegisterResponse',
      public: true,
    },
  },
});

export type RegisterRequest = Shape<typeof RegisterRequest>;
export type RegisterResponse = Shape<typeof RegisterResponse>;
