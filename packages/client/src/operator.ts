/**
 * The operator's client: one method per operation of the operator surface (sign-in, groups, the
 * allow-list, invitations, agents, fleet webhooks, audit, reference data, the local chain's airdrop),
 * each named after its operationId and typed from the operator OpenAPI document
 * (generated/operator-api.ts) through openapi-fetch. It shares the agent client's connection: the same
 * retry policy and the same TokenOpsError for a refusal (connection.ts).
 */
import bs58 from 'bs58';
import { Connection, type ConnectionOptions } from './connection';
import type { components, operations, paths } from './generated/operator-api';

type Schemas = components['schemas'];
/** The query of an operation (its parameters in the document). */
type Query<Id extends keyof operations> = NonNullable<operations[Id]['parameters']['query']>;

/** The wallet that signs in: its address (base58) and an ed25519 signature of a message (no key library needed). */
export interface WalletSigner {
  readonly address: string;
  sign(message: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

export interface OperatorClientOptions extends ConnectionOptions {
  /** The service's URL, such as `https://tokenops.example.com` (`/api/v1` is added unless present). */
  baseUrl: string;
  /**
   * The JWT of POST /orchestrator/auth/token (an operator's, or an auditor's for the audit reads);
   * without one, the client makes the reads anyone may (tokens, venues, pools).
   */
  token?: string;
  /** When the token expires (ISO 8601), if known. */
  expiresAt?: string;
  /** The wallet the token is of, if the client may sign with it (proposals: `enact`). */
  wallet?: WalletSigner;
}

/** A governance proposal, as the service answers a widening change (`202`) or a signature. */
export type Proposal = Schemas['Proposal'];

/** Whether an answer is a proposal (a widening change is one; docs/governance.md). */
export const isProposal = (answer: unknown): answer is Proposal =>
  typeof answer === 'object' &&
  answer !== null &&
  typeof (answer as Proposal).proposal_id === 'string' &&
  typeof (answer as Proposal).message === 'string' &&
  typeof (answer as Proposal).signatures_required === 'number';

export class OperatorClient {
  private readonly c: Connection<paths>;
  /** The JWT the client sends (Authorization: Bearer), if it has one. */
  readonly token?: string;
  /** When the token expires (ISO 8601): known when the client signed in itself, or was told. */
  readonly expiresAt?: string;

  /** The wallet it signed in with, when it did: it signs proposals (`enact`). */
  private readonly wallet?: WalletSigner;

  constructor(options: OperatorClientOptions) {
    if (options.wallet !== undefined) this.wallet = options.wallet;
    if (options.token !== undefined) this.token = options.token;
    if (options.expiresAt !== undefined) this.expiresAt = options.expiresAt;
    const headers: Record<string, string> =
      options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
    this.c = new Connection<paths>(options.baseUrl, headers, options);
  }

  /**
   * Signs in with a wallet: asks for a challenge, signs its text (UTF-8, ed25519) and exchanges the
   * signature for a JWT valid one hour; a client that sends it.
   */
  static async signIn(
    baseUrl: string,
    wallet: WalletSigner,
    options: ConnectionOptions = {},
  ): Promise<OperatorClient> {
    const c = new Connection<paths>(baseUrl, {}, options);
    const { message } = await c.result(
      c.api.POST('/orchestrator/auth/challenge', { body: { wallet: wallet.address } }),
    );
    const signature = bs58.encode(await wallet.sign(new TextEncoder().encode(message)));
    // A challenge is exchanged once: retried on 429 only.
    const { token, expires_at } = await c.result(
      c.api.POST('/orchestrator/auth/token', {
        body: { wallet: wallet.address, message, signature },
        ...c.once,
      }),
    );
    return new OperatorClient({ ...options, baseUrl, token, expiresAt: expires_at, wallet });
  }

  /**
   * What the CLI and the console do for one admin: an answer that is a proposal (a widening change's
   * `202`) signed at once with the wallet the client signed in with, and the change's result once that
   * signature executed it (an invitation's code in it, shown this once). Anything else comes back as
   * it came: the change's own answer (it narrowed, so it was made at once), or the proposal as it
   * stands when it needs more admins' signatures (or the client has no wallet to sign with).
   */
  async enact<R = unknown>(answer: unknown): Promise<R | Proposal> {
    if (!isProposal(answer) || !this.wallet || answer.status !== 'pending') return answer as R | Proposal;
    const signature = bs58.encode(await this.wallet.sign(new TextEncoder().encode(answer.message)));
    const signed = await this.signProposal(answer.proposal_id, { signature });
    return signed.status === 'executed' ? (signed.result as R) : signed;
  }

  // Idempotent operations are retried on 429, 5xx and failed connections; the others (`c.once`)
  // on 429 only, since a retry after a lost answer would do them twice.

  // ---- groups -------------------------------------------------------------------------------------

  /** The groups the signed-in wallet owns, oldest first. */
  listGroups() {
    return this.c.result(this.c.api.GET('/orchestrator/groups'));
  }

  /** A group owned by the signed-in wallet, with default limits for its agents. */
  createGroup(body: Schemas['CreateGroupRequest'] = {}) {
    return this.c.result(this.c.api.POST('/orchestrator/groups', { body, ...this.c.once }));
  }

  /** The group: default limits, agents, the allow-list with what each budget used and has left. */
  getGroup(group: string) {
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}', { params: { path: { group } } }));
  }

  /** New defaults for new agents, a name, a description; a rise of a default is a proposal (202). */
  updateGroup(group: string, body: Schemas['UpdateGroupRequest']) {
    const params = { path: { group } };
    return this.c.result(this.c.api.PATCH('/orchestrator/groups/{group}', { params, body, ...this.c.once }));
  }

  /** The log compared with the chain for every agent of the group: the discrepancies. */
  reconcileGroup(group: string, query: Query<'reconcileGroup'> = {}) {
    const params = { path: { group }, query };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/reconciliation', { params }));
  }

  /** Each agent's use of its limits now (spent today, operations this hour), balances, last activity. */
  groupUsage(group: string) {
    return this.c.result(
      this.c.api.GET('/orchestrator/groups/{group}/usage', { params: { path: { group } } }),
    );
  }

  /** Confirmed spends over 24 hours or 7 days, by agent and by recipient. */
  groupSpend(group: string, query: Query<'groupSpend'> = {}) {
    const params = { path: { group }, query };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/spend', { params }));
  }

  /**
   * One page of the group's events after `lastEventId` (an event's position), as JSON; the same route
   * streams them as server-sent events to a client that asks for text/event-stream (the console).
   */
  groupEvents(group: string, lastEventId?: string, query: Query<'groupEvents'> = {}) {
    return this.c.result(
      this.c.api.GET('/orchestrator/groups/{group}/events', {
        params: { path: { group }, query },
        ...(lastEventId !== undefined && { headers: { 'last-event-id': lastEventId } }),
      }),
    );
  }

  /** Allows a recipient (type 1, with an approved amount and a lifetime) or a protocol (type 2), either with a daily limit. */
  addWhitelistEntry(group: string, body: Schemas['WhitelistRequest']) {
    const params = { path: { group } };
    return this.c.result(
      this.c.api.POST('/orchestrator/groups/{group}/whitelist', { params, body, ...this.c.once }),
    );
  }

  /**
   * Sets an entry's own daily limit over all the group's agents (null lifts it): set or lowered at
   * once; lifted or raised, a proposal (`202`) the group's admins sign.
   */
  changeWhitelistEntry(group: string, entry: string, body: Schemas['WhitelistChangeRequest']) {
    const params = { path: { group, entry } };
    return this.c.result(
      this.c.api.PATCH('/orchestrator/groups/{group}/whitelist/{entry}', { params, body, ...this.c.once }),
    );
  }

  /** Removes an allow-list entry. */
  removeWhitelistEntry(group: string, entry: string) {
    const params = { path: { group, entry } };
    return this.c.result(
      this.c.api.DELETE('/orchestrator/groups/{group}/whitelist/{entry}', { params, ...this.c.once }),
    );
  }

  /** Invites an agent: a wallet in custody, its limits, and a one-time code (shown once). */
  inviteAgent(group: string, body: Schemas['InvitationRequest'] = {}) {
    const params = { path: { group } };
    return this.c.result(
      this.c.api.POST('/orchestrator/groups/{group}/invitations', { params, body, ...this.c.once }),
    );
  }

  // ---- agents -------------------------------------------------------------------------------------

  /** Changes any of an agent's limits. */
  changeLimits(agent: string, body: Schemas['LimitsChangeRequest']) {
    const params = { path: { agent } };
    return this.c.result(this.c.api.PATCH('/orchestrator/agents/{agent}/limits', { params, body }));
  }

  /** Revokes an agent: its key is refused from now on, for good. */
  revokeAgent(agent: string) {
    const params = { path: { agent } };
    return this.c.result(this.c.api.POST('/orchestrator/agents/{agent}/revoke', { params, body: {} }));
  }

  /** Revokes an agent, redeems its positions and moves its tokens (to the operator's wallet by default). */
  emergencyWithdraw(agent: string, body: Schemas['EmergencyWithdrawRequest'] = {}) {
    const params = { path: { agent } };
    // Safe to repeat: a drain cut short is finished by the next call.
    return this.c.result(
      this.c.api.POST('/orchestrator/agents/{agent}/emergency-withdraw', { params, body }),
    );
  }

  /** Freezes an agent: every spend of it is refused (agent_frozen) at once. Any admin. */
  freezeAgent(agent: string, body: Schemas['FreezeRequest'] = {}) {
    const params = { path: { agent } };
    return this.c.result(this.c.api.POST('/orchestrator/agents/{agent}/freeze', { params, body }));
  }

  /** Freezes a group: every spend of every agent of it is refused (group_frozen) at once. Any admin. */
  freezeGroup(group: string, body: Schemas['FreezeRequest'] = {}) {
    const params = { path: { group } };
    return this.c.result(this.c.api.POST('/orchestrator/groups/{group}/freeze', { params, body }));
  }

  // ---- members and the governance policy (each change a proposal: 202) ----------------------------

  /** The group's members and their roles. */
  listMembers(group: string) {
    const params = { path: { group } };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/members', { params }));
  }

  /** Proposes a member, or a new role for one (202: a proposal). */
  addMember(group: string, body: Schemas['MemberRequest']) {
    const params = { path: { group } };
    return this.c.result(
      this.c.api.POST('/orchestrator/groups/{group}/members', { params, body, ...this.c.once }),
    );
  }

  /** Proposes to remove a member (202: a proposal). */
  removeMember(group: string, wallet: string) {
    const params = { path: { group, wallet } };
    return this.c.result(
      this.c.api.DELETE('/orchestrator/groups/{group}/members/{wallet}', { params, ...this.c.once }),
    );
  }

  /** The governance policy in force: quorum, delay, safe destination. */
  getGovernance(group: string) {
    const params = { path: { group } };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/governance', { params }));
  }

  /** Proposes a governance policy (202: a proposal); the fields left out keep their value. */
  setGovernance(group: string, body: Schemas['GovernanceRequest']) {
    const params = { path: { group } };
    return this.c.result(
      this.c.api.PUT('/orchestrator/groups/{group}/governance', { params, body, ...this.c.once }),
    );
  }

  /** Proposes to lift an agent's freeze (202: a proposal, executed once a quorum of admins signed it). */
  unfreezeAgent(agent: string) {
    const params = { path: { agent } };
    return this.c.result(this.c.api.POST('/orchestrator/agents/{agent}/unfreeze', { params, body: {} }));
  }

  /** Proposes to lift a group's freeze (202: a proposal, executed once a quorum of admins signed it). */
  unfreezeGroup(group: string) {
    const params = { path: { group } };
    return this.c.result(this.c.api.POST('/orchestrator/groups/{group}/unfreeze', { params, body: {} }));
  }

  /** The group's proposals, newest first (by status when given). */
  listProposals(group: string, query: Query<'listProposals'> = {}) {
    const params = { path: { group }, query };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/proposals', { params }));
  }

  /** One proposal as it stands. */
  getProposal(proposal: string) {
    const params = { path: { proposal } };
    return this.c.result(this.c.api.GET('/orchestrator/proposals/{proposal}', { params }));
  }

  /** Signs a proposal: `signature` is the admin wallet's ed25519 signature (base58) of its `message`. */
  signProposal(proposal: string, body: Schemas['SignProposalRequest']) {
    const params = { path: { proposal } };
    return this.c.result(this.c.api.POST('/orchestrator/proposals/{proposal}/sign', { params, body }));
  }

  /** The secrets a proposal the service executed after its delay made (an invitation code): for its proposer, once. */
  getProposalSecret(proposal: string) {
    const params = { path: { proposal } };
    return this.c.result(this.c.api.GET('/orchestrator/proposals/{proposal}/secret', { params }));
  }

  /** Cancels a pending or ready proposal. */
  cancelProposal(proposal: string, body: Schemas['CancelProposalRequest'] = {}) {
    const params = { path: { proposal } };
    return this.c.result(this.c.api.POST('/orchestrator/proposals/{proposal}/cancel', { params, body }));
  }

  /** A new API key for the agent (shown once); the old one is refused from now on. */
  rotateKey(agent: string) {
    const params = { path: { agent } };
    return this.c.result(
      this.c.api.POST('/orchestrator/agents/{agent}/rotate-key', { params, body: {}, ...this.c.once }),
    );
  }

  // ---- fleet webhooks -----------------------------------------------------------------------------

  /**
   * Proposes to subscribe an HTTPS URL to the events of every agent of the group (`enact` signs it);
   * the executed proposal's result holds the signing secret, once.
   */
  createFleetWebhook(group: string, body: Schemas['WebhookRequest']) {
    const params = { path: { group } };
    return this.c.result(
      this.c.api.POST('/orchestrator/groups/{group}/webhooks', { params, body, ...this.c.once }),
    );
  }

  /** Every subscription of the group: its fleet webhooks and its agents' own. */
  listWebhooks(group: string) {
    const params = { path: { group } };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/webhooks', { params }));
  }

  /** Deletes a subscription of one of the operator's groups. */
  deleteWebhook(webhook: string) {
    const params = { path: { webhook } };
    return this.c.result(this.c.api.DELETE('/orchestrator/webhooks/{webhook}', { params, ...this.c.once }));
  }

  /** The delivery log of a subscription, newest first. */
  listDeliveries(webhook: string, query: Query<'listDeliveries'> = {}) {
    const params = { path: { webhook }, query };
    return this.c.result(this.c.api.GET('/orchestrator/webhooks/{webhook}/deliveries', { params }));
  }

  /** Sends one event (event_id) or every event since a time (since) to the subscription again. */
  redeliver(webhook: string, body: Schemas['RedeliverRequest']) {
    const params = { path: { webhook } };
    return this.c.result(
      this.c.api.POST('/orchestrator/webhooks/{webhook}/redeliver', { params, body, ...this.c.once }),
    );
  }

  /** A new signing secret (shown once); the previous one signs too for grace_seconds. */
  rotateWebhookSecret(webhook: string, body: Schemas['RotateSecretRequest'] = {}) {
    const params = { path: { webhook } };
    return this.c.result(
      this.c.api.POST('/orchestrator/webhooks/{webhook}/rotate-secret', { params, body, ...this.c.once }),
    );
  }

  // ---- audit --------------------------------------------------------------------------------------

  /** The wallets that may read the group's log. */
  listAuditors(group: string) {
    return this.c.result(
      this.c.api.GET('/orchestrator/groups/{group}/auditors', { params: { path: { group } } }),
    );
  }

  /** Gives a wallet read-only access to the group's log (granting twice changes nothing). */
  grantAuditor(group: string, body: Schemas['AuditorRequest']) {
    const params = { path: { group } };
    return this.c.result(this.c.api.POST('/orchestrator/groups/{group}/auditors', { params, body }));
  }

  /** Takes an auditor's access away. */
  removeAuditor(group: string, body: Schemas['AuditorRequest']) {
    const params = { path: { group } };
    return this.c.result(
      this.c.api.DELETE('/orchestrator/groups/{group}/auditors', { params, body, ...this.c.once }),
    );
  }

  /** The group's events in log order, filtered, a page after a cursor (owner or auditor). */
  auditEvents(group: string, query: Query<'auditEvents'> = {}) {
    const params = { path: { group }, query };
    return this.c.result(this.c.api.GET('/audit/groups/{group}/events', { params }));
  }

  /** The hash chain of the group's events checked: what no longer holds, the digest, checkpoints. */
  verifyGroupLog(group: string, query: Query<'verifyGroupLog'> = {}) {
    const params = { path: { group }, query };
    return this.c.result(this.c.api.GET('/audit/groups/{group}/verification', { params }));
  }

  /** Everything about one intent: the decision, budget events, signature, outcome, deliveries. */
  intentStory(intent: string) {
    const params = { path: { intent } };
    return this.c.result(this.c.api.GET('/audit/intents/{intent}', { params }));
  }

  // ---- approvals of held spends ------------------------------------------------------------------

  /** The group's approval policy in force (none set: the one that holds nothing). */
  getApprovalPolicy(group: string) {
    const params = { path: { group } };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/approval-policy', { params }));
  }

  /** Sets which spends of the group wait for a person (owner only). */
  setApprovalPolicy(group: string, body: Schemas['ApprovalPolicyRequest']) {
    const params = { path: { group } };
    return this.c.result(this.c.api.PUT('/orchestrator/groups/{group}/approval-policy', { params, body }));
  }

  /** The group's own limits over all its agents, and what their windows hold now. */
  getGroupLimits(group: string) {
    const params = { path: { group } };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/limits', { params }));
  }

  /**
   * Sets the group's own limits (admins): a field left out is kept, null lifts it. Setting or lowering
   * applies at once; lifting or raising answers a proposal (`202`) the group's admins sign.
   */
  setGroupLimits(group: string, body: Schemas['GroupLimitsRequest']) {
    const params = { path: { group } };
    return this.c.result(this.c.api.PUT('/orchestrator/groups/{group}/limits', { params, body }));
  }

  /** The group's guard rules in force. */
  getGuard(group: string) {
    const params = { path: { group } };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/guard', { params }));
  }

  /**
   * Replaces the group's guard rules (admins). Adding or tightening applies at once; removing or
   * loosening any answers a proposal (`202`) the group's admins sign.
   */
  setGuard(group: string, body: Schemas['GuardRequest']) {
    const params = { path: { group } };
    return this.c.result(this.c.api.PUT('/orchestrator/groups/{group}/guard', { params, body }));
  }

  /** What a proposed policy would have done to the group's spends of a window (nothing is written). */
  previewPolicy(group: string, body: Schemas['PolicyPreviewRequest'] = {}) {
    const params = { path: { group } };
    return this.c.result(this.c.api.POST('/orchestrator/groups/{group}/policy-preview', { params, body }));
  }

  /** The group's held spends, newest first, by status. */
  listApprovals(group: string, query: Query<'listApprovals'> = {}) {
    const params = { path: { group }, query };
    return this.c.result(this.c.api.GET('/orchestrator/groups/{group}/approvals', { params }));
  }

  /** One held spend, with the message its approvers sign. */
  getApproval(approval: string) {
    const params = { path: { approval } };
    return this.c.result(this.c.api.GET('/orchestrator/approvals/{approval}', { params }));
  }

  /** Approves a held spend: `signature` is the signed-in wallet's (base58) of the approval's message. */
  approveSpend(approval: string, body: Schemas['ApproveRequest']) {
    const params = { path: { approval } };
    return this.c.result(this.c.api.POST('/orchestrator/approvals/{approval}/approve', { params, body }));
  }

  /** Rejects a held spend: it fails, and what it reserved is released. */
  rejectSpend(approval: string, body: Schemas['RejectRequest'] = {}) {
    const params = { path: { approval } };
    return this.c.result(this.c.api.POST('/orchestrator/approvals/{approval}/reject', { params, body }));
  }

  // ---- reference data and the local chain ---------------------------------------------------------

  /** The tokens of the registry: symbol, mint, decimals. */
  listTokens() {
    return this.c.result(this.c.api.GET('/tokens'));
  }

  /** The lending venues, each with the mints it takes. */
  listVenues() {
    return this.c.result(this.c.api.GET('/venues'));
  }

  /** The swap aggregator and, on the local chain, its pools. */
  listPools() {
    return this.c.result(this.c.api.GET('/pools'));
  }

  /** Local chain only: mints demo tokens to an address. */
  airdrop(body: Schemas['AirdropRequest']) {
    return this.c.result(this.c.api.POST('/dev/airdrop', { body, ...this.c.once }));
  }
}
