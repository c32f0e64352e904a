/**
 * The reference reads of the agent contract (agent/reference.ts: tokens, venues, pools, served by the
 * agent's routes), and the local chain's airdrop: an operator mints demo tokens to an address.
 */
import { object } from '../build';
import { AGENT_REFERENCE } from '../agent/reference';
import { contractTag } from '../openapi';
import { AmountInput, AmountOutput, Identifier, Text, type Shape } from '../schemas';
import { SIGNED_IN, WRITE_HEADERS } from './common';

export const AirdropRequest = object({ to: Identifier, mint: Identifier, amount: AmountInput }, ['mint']);

export const AirdropResponse = object({
  tx_signature: Text,
  to: Identifier,
  mint: Identifier,
  symbol: Text,
  amount: AmountOutput,
});

export const OPERATOR_REFERENCE = contractTag({
  name: 'reference',
  description: 'Tokens, venues, pools; the local chain’s airdrop.',
  schemas: { ...AGENT_REFERENCE.schemas, AirdropRequest, AirdropResponse },
  operations: {
    ...AGENT_REFERENCE.operations,
    airdrop: {
      method: 'post',
      path: '/dev/airdrop',
      tag: 'reference',
      operationId: 'airdrop',
      headers: WRITE_HEADERS,
      summary: 'Local chain only: mint demo tokens to an address, as an outside payer would.',
      description: 'For wallets that may create groups; not_found on any other chain.',
      request: 'AirdropRequest',
      response: 'AirdropResponse',
      errors: [
        ...SIGNED_IN,
        'forbidden',
        'not_found',
        'invalid_amount',
        'invalid_mint',
        'token_not_in_registry',
        'recipient_invalid',
      ],
    },
  },
});

export type AirdropRequest = Shape<typeof AirdropRequest>;
