/**
 * Who may read a group's log: the owner grants a wallet read-only access (an auditor signs in as an
 * operator does), lists and removes them.
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { Identifier, type Shape } from '../schemas';
import { OWNER } from './common';

/** An auditor of a group: the wallet that gets (or loses) read-only access to its log. */
export const AuditorRequest = object({ wallet: Identifier });

export const AuditorsResponse = object({
  group_config_pda: Identifier,
  wallet: Identifier,
  auditors: { type: 'array', items: Identifier, description: 'The group’s auditors now.' },
});

export const AuditorListResponse = object({
  group_config_pda: Identifier,
  auditors: {
    type: 'array',
    items: Identifier,
    description: 'The wallets granted read access, oldest first.',
  },
});

export const OPERATOR_AUDITORS = contractTag({
  name: 'auditors',
  description: 'Who may read a group’s log: the owner grants and removes auditors.',
  schemas: { AuditorRequest, AuditorsResponse, AuditorListResponse },
  operations: {
    listAuditors: {
      method: 'get',
      path: '/orchestrator/groups/{group}/auditors',
      tag: 'auditors',
      operationId: 'listAuditors',
      summary: 'The wallets that may read the group’s log (the owner only).',
      response: 'AuditorListResponse',
      errors: OWNER,
    },
    grantAuditor: {
      method: 'post',
      path: '/orchestrator/groups/{group}/auditors',
      tag: 'auditors',
      operationId: 'grantAuditor',
      summary: 'Give a wallet read-only access to the group’s log (granting twice changes nothing).',
      request: 'AuditorRequest',
      response: 'AuditorsResponse',
      status: 201,
      errors: [...OWNER, 'conflict'],
    },
    removeAuditor: {
      method: 'delete',
      path: '/orchestrator/groups/{group}/auditors',
      tag: 'auditors',
      operationId: 'removeAuditor',
      summary:
        'Take an auditor’s access away (the wallet in the body); its token reads nothing of the group after.',
      request: 'AuditorRequest',
      response: 'AuditorsResponse',
      errors: OWNER,
    },
  },
});

export type AuditorRequest = Shape<typeof AuditorRequest>;
