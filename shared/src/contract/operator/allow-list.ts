/**
 * The allow-list of a group: who its agents may pay. An external recipient (type 1) with an approved
 * amount shared by the group's agents and a lifetime, or a protocol (type 2), either with a daily limit
 * of its own over all the group's agents (guard.md); the agents of the group (type 0) are added with
 * their invitation.
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { Proposal } from './governance';
import { AmountInput, Identifier, type Shape } from '../schemas';
import {
  AmountText,
  Label,
  NullableAmount,
  NullableAmountText,
  NullableText,
  NullableTimestamp,
  OWNER,
  WRITE_HEADERS,
} from './common';

/** An entry's own daily limit as an operator gives it: an amount of the base token, or null (none). */
const EntryDailyLimit = {
  ...NullableAmount,
  description:
    'What all the group’s agents together may send this entry in any 24 hours, valued in the base token (types 1 and 2; withdrawals are not counted); null: none.',
};

/** The longest allow-list entry lifetime: ten years, in seconds. */
export const MAX_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;

export const WhitelistRequest = object(
  {
    address: Identifier,
    type: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 2,
      enum: [1, 2],
      description: '1: an external recipient (needs approved_amount and ttl_seconds); 2: a protocol.',
    },
    label: Label,
    approved_amount: AmountInput,
    ttl_seconds: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_TTL_SECONDS },
    daily_limit: EntryDailyLimit,
  },
  ['label', 'approved_amount', 'ttl_seconds', 'daily_limit'],
);

export const WhitelistChangeRequest = object({ daily_limit: EntryDailyLimit });

export const WhitelistEntryResponse = object({
  whitelist_entry_pda: Identifier,
  address: Identifier,
  type: {
    type: 'integer',
    enum: [0, 1, 2],
    description: '0: an agent of the group; 1: an external recipient; 2: a protocol.',
  },
  label: NullableText,
  approved_amount: { type: ['string', 'null'], pattern: AmountText.pattern },
  ttl_expires_at: NullableTimestamp,
  daily_limit: { ...NullableAmountText, description: 'The entry’s own daily limit; null: none.' },
  spent_last_24h: {
    ...NullableAmountText,
    description:
      'What the group’s agents sent the entry in the last 24 hours (accepted, held or confirmed; not failed or withdrawn), counted while it had a daily limit (a type-1 entry counts from its start); null while it has none.',
  },
});

export const WhitelistRemovedResponse = object({ removed: Identifier });

export const OPERATOR_ALLOW_LIST = contractTag({
  name: 'allow-list',
  description:
    'Who a group’s agents may pay: recipients with a budget and a lifetime, protocols; either with a daily limit of its own.',
  schemas: {
    WhitelistRequest,
    WhitelistChangeRequest,
    WhitelistEntryResponse,
    WhitelistRemovedResponse,
    Proposal,
  },
  parameters: { entry: Identifier },
  operations: {
    addWhitelistEntry: {
      method: 'post',
      path: '/orchestrator/groups/{group}/whitelist',
      tag: 'allow-list',
      operationId: 'addWhitelistEntry',
      headers: WRITE_HEADERS,
      summary:
        'Propose to allow a recipient (type 1: with an approved amount and a lifetime) or a protocol (type 2): a proposal, `202`.',
      description:
        'Adds `address` to the group’s allow-list: a recipient (type 1) takes an `approved_amount` (more than zero, else `400 invalid_amount`) and a `ttl_seconds`, a protocol (type 2, a program such as a lending venue) takes neither; either may take a `daily_limit`, what all the group’s agents together may send it in any 24 hours (a spend past it is `403 entry_daily_limit_exceeded`). An address already listed is renewed (new budget, new lifetime, its use counted afresh); an agent of the group is `409 conflict`. A proposal (`202`): allowing a recipient or a protocol widens what agents may spend, so nothing changes until a quorum of the group’s admins has signed the proposal’s `message` (POST /orchestrator/proposals/{proposal}/sign); with the default governance (quorum 1, no delay) the proposer’s own signature executes it, and its answer’s `result` is the entry. Bad input is `400` and a change that cannot apply `409` at once: a proposal is only ever made of a valid change. Only admins of the group: anyone else is `403 forbidden`, an unknown group `404 not_found`.',
      request: 'WhitelistRequest',
      response: 'Proposal',
      result: 'WhitelistEntryResponse',
      status: 202,
      errors: [...OWNER, 'invalid_amount', 'recipient_invalid', 'conflict'],
    },
    changeWhitelistEntry: {
      method: 'patch',
      path: '/orchestrator/groups/{group}/whitelist/{entry}',
      tag: 'allow-list',
      operationId: 'changeWhitelistEntry',
      headers: WRITE_HEADERS,
      summary:
        'Change an entry’s own daily limit (types 1 and 2): set or lowered at once, lifted or raised by a proposal (`202`).',
      description:
        'Sets the entry’s `daily_limit`, what all the group’s agents together may send it in any 24 hours, valued in the base token (null lifts it). Setting or lowering it applies at once (`200`); lifting or raising it widens what agents may send, so the answer is `202` with a proposal the group’s admins sign (`allow_list.daily_limit`). The entry stays the same entry: its budget, its lifetime and what its window counted stay (a type-2 entry counts from the moment it has a limit). What is in force already is `409 conflict`, and so is an agent’s own entry (type 0); bad input is `400` with the field named. Answered once the agent views include it (`X-Data-Stale` says whether they did in time). Only admins of the group: anyone else is `403 forbidden`, an entry that is not the group’s `404 not_found`.',
      request: 'WhitelistChangeRequest',
      response: 'WhitelistEntryResponse',
      proposes: true,
      result: 'WhitelistEntryResponse',
      errors: [...OWNER, 'invalid_amount', 'conflict'],
    },
    removeWhitelistEntry: {
      method: 'delete',
      path: '/orchestrator/groups/{group}/whitelist/{entry}',
      tag: 'allow-list',
      operationId: 'removeWhitelistEntry',
      headers: WRITE_HEADERS,
      summary: 'Remove an allow-list entry (an agent of the group stays allowed: revoke it instead).',
      description:
        'Removes the entry: spends to its address are refused (`403 whitelist_violation`) from now on. An agent’s own entry stays (`409 conflict`: revoke the agent instead), and an entry that is not the group’s is `404 not_found`. Answered once the agent views include it (`X-Data-Stale` says whether they did in time), so the agents see it at once. Only the group’s owner: another wallet’s group is `403 forbidden`, an unknown one `404 not_found`.',
      response: 'WhitelistRemovedResponse',
      errors: [...OWNER, 'conflict'],
    },
  },
});

export type WhitelistRequest = Shape<typeof WhitelistRequest>;
export type WhitelistChangeRequest = Shape<typeof WhitelistChangeRequest>;
