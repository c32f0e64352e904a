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
      description:
        'The wallets granted read access to the group’s log. Only the group’s owner: another wallet’s group is `403 forbidden`, an unknown one `404 not_found`.',
      response: 'AuditorListResponse',
      errors: OWNER,
    },
    grantAuditor: {
      method: 'post',
      path: '/orchestrator/groups/{group}/auditors',
      tag: 'auditors',
      operationId: 'grantAuditor',
      summary: 'Propose to give a wallet read-only access to the group’s log (a proposal, `202`).',
      description:
        'Grants `wallet` read access to the group’s audit routes (its events, an intent’s story, the log’s verification, and the held spends); it signs in like an operator and may change nothing. It hands out data, so it is a proposal (`202`) the group’s admins sign; a wallet that audits the group already is answered `201` at once, nothing recorded; a member’s wallet is `409 conflict` (it reads the log already). Only admins of the group: anyone else is `403 forbidden`, an unknown group `404 not_found`.',
      request: 'AuditorRequest',
      response: 'AuditorsResponse',
      status: 201,
      proposes: true,
      result: 'AuditorsResponse',
      errors: [...OWNER, 'conflict'],
    },
    removeAuditor: {
      method: 'delete',
      path: '/orchestrator/groups/{group}/auditors',
      tag: 'auditors',
      operationId: 'removeAuditor',
      summary:
        'Take an auditor’s access away (the wallet in the body); its token reads nothing of the group after.',
      description:
        'Takes the wallet’s access away at once: its token reads nothing of the group after. A wallet that is not an auditor of the group is `404 not_found`. Only the group’s owner: another wallet’s group is `403 forbidden`, an unknown one `404 not_found`.',
      request: 'AuditorRequest',
      response: 'AuditorsResponse',
      errors: OWNER,
    },
  },
});

export type AuditorRequest = Shape<typeof AuditorRequest>;
