/** The agent contract's onboarding (spec/agent-api.md): an invitation code for an API key, shown once. */
import { object, openObject } from '../build';
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

export const RegisterResponse = openObject({
  agent_wallet_pda: { type: 'string' },
  api_key: { type: 'string' },
});

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
      description:
        'Redeems a one-time invitation code an operator made for a group (POST /orchestrator/groups/{group}/invitations): the agent is registered under the group’s limits, and its API key is answered once (`cache-control: no-store`; the service keeps only its hash). Answered once the read views hold the key, so it works at once on every instance. A code that is unknown, expired or already redeemed is `400 invalid_invitation_code`; wrong codes are counted per client address, and past its allowance the address is answered `429 rate_limited` with Retry-After. No key is needed.',
      request: 'RegisterRequest',
      response: 'RegisterResponse',
      public: true,
      signIn: true,
    },
  },
});

export type RegisterRequest = Shape<typeof RegisterRequest>;
export type RegisterResponse = Shape<typeof RegisterResponse>;
