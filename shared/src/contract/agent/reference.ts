/**
 * What a spend needs, public: the token registry, the lending venues, the aggregator's pools. The same
 * rows are in the operator's document (operator/reference.ts), served once.
 */
import { object } from '../build';
import { REFERENCE_ERRORS, contractTag } from '../openapi';
import { AmountOutput, Count, Identifier, Text } from '../schemas';

export const TokensResponse = object({
  tokens: {
    type: 'array',
    items: object({
      symbol: Text,
      mint: Identifier,
      decimals: { type: 'integer', minimum: 0, maximum: 255 },
    }),
  },
});

export const VenuesResponse = object({
  venues: {
    type: 'array',
    items: object({
      lending_program: Identifier,
      name: Text,
      mints: { type: 'array', items: Identifier, description: 'The underlying mints it takes.' },
    }),
  },
});

export const PoolsResponse = object({
  aggregator: { type: ['string', 'null'] },
  pools: {
    type: 'array',
    description: 'The local chain’s pools; empty with another aggregator.',
    items: object({
      pair: { type: 'string', description: 'Two symbols, e.g. USDC/SOL.' },
      fee_bps: Count,
      reserves: {
        type: 'array',
        items: object({ symbol: Text, mint: Identifier, vault: Identifier, reserve: AmountOutput }),
      },
    }),
  },
});

export const AGENT_REFERENCE = contractTag({
  name: 'reference',
  description: 'What a spend needs: tokens, lending venues, pools (no key needed).',
  schemas: { TokensResponse, VenuesResponse, PoolsResponse },
  operations: {
    listTokens: {
      method: 'get',
      path: '/tokens',
      tag: 'reference',
      operationId: 'listTokens',
      summary: 'The tokens of the registry: symbol, mint, decimals (what from_mint, to_mint and mint take).',
      description:
        'The registry: every token the service handles, its symbol, mint and decimals. Public (no key); the same for every caller.',
      response: 'TokensResponse',
      errors: REFERENCE_ERRORS,
      public: true,
    },
    listVenues: {
      method: 'get',
      path: '/venues',
      tag: 'reference',
      operationId: 'listVenues',
      summary: 'The lending venues (lending_program of deposit and withdraw), each with the mints it takes.',
      description:
        'The lending venues the service operates (deposit and withdraw name one by `lending_program`), each with the underlying mints it takes. A group’s agents use one only once its operator has allow-listed it. Public (no key).',
      response: 'VenuesResponse',
      errors: REFERENCE_ERRORS,
      public: true,
    },
    listPools: {
      method: 'get',
      path: '/pools',
      tag: 'reference',
      operationId: 'listPools',
      summary: 'The swap aggregator and, on the local chain, its pools with their reserves.',
      description:
        'The aggregator the swaps go through (null when none) and, for the local chain’s aggregator, its pools now: each pair, its fee and its reserves, in human units (empty with another aggregator). Public (no key).',
      response: 'PoolsResponse',
      errors: REFERENCE_ERRORS,
      public: true,
    },
  },
});
