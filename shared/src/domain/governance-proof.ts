/**
 * The proof in the log (docs/governance.md, "Proof"): fed a group's events in log order, it checks
 * that every widening change carries a quorum of valid admin signatures over its proposal's message,
 * under the governance policy in force when it executed. An auditor needs nothing but the log:
 *
 * - every `governance.executed` names a proposal of the log whose message is what its fields say
 *   (recomputed, not trusted) and whose signers were admins then, each with a valid ed25519 signature
 *   of that message recorded, at least the quorum then in force;
 * - every change that says it was made by a proposal (`proposal_id`) belongs to one that executed so;
 * - once a group is governed (its first proposal), a change that always widens (an address allowed,
 *   an agent invited, an auditor granted, a member added, the governance policy set, a freeze lifted,
 *   a fleet webhook registered) carries a proposal.
 *
 * Pure: no I/O, no clock; the signatures are checked with the domain's verifier.
 */
import type { DomainEvent } from './events';
import { evolveGovernance, initialGovernanceState, roleOf, type GovernanceState } from './governance';
import { evolveProposals, initialProposalsState, proposalMessage, type ProposalsState } from './proposal';
import { verifySignature } from './signatures';

export interface GovernanceFinding {
  proposal_id: string | null;
  event_id: string;
  type: string;
  reason: 'unknown_proposal' | 'message_differs' | 'no_quorum' | 'not_executed' | 'no_proposal';
  message: string;
}

export interface GovernanceProof {
  /** Executions checked. */
  checked: number;
  /** What does not hold, in log order (the unexecuted changes at the end). */
  invalid: GovernanceFinding[];
}

/** The changes that always widen: once a group is governed, each must carry a proposal. */
const ALWAYS_WIDENING = new Set([
  'whitelist.entry_added',
  'agent.invited',
  'auditor.granted',
  'member.added',
  'governance.policy_set',
  'group.unfrozen',
  'agent.unfrozen',
  'webhook.registered',
]);

/** An always-widening kind that does not widen in this case: a protocol entry, an agent's own webhook. */
const narrowCase = (type: string, data: { type?: number; agent_id?: string }) =>
  (type === 'whitelist.entry_added' && data.type === 0) ||
  (type === 'webhook.registered' && data.agent_id !== undefined);

interface Observed {
  id: string;
  type: string;
  data: unknown;
}

export class GovernanceAuditor {
  private readonly governance = new Map<string, GovernanceState>();
  private readonly proposals = new Map<string, ProposalsState>();
  /** Groups with a proposal in the log: from then on every widening change carries one. */
  private readonly governed = new Set<string>();
  private readonly executed = new Set<string>();
  /** Changes naming a proposal, until it is seen executed (a store may append them before it). */
  private readonly awaiting = new Map<string, Observed[]>();
  private readonly report: GovernanceProof = { checked: 0, invalid: [] };

  observe(event: Observed): void {
    const e = event as unknown as DomainEvent & { id: string };
    const data = e.data as { group_id?: string; proposal_id?: string };
    const groupId = data.group_id;
    if (e.type.startsWith('governance.') && e.type !== 'governance.policy_set') {
      if (groupId === undefined) return;
      if (e.type === 'governance.proposed') this.governed.add(groupId);
      if (e.type === 'governance.executed') this.check(event, groupId);
      const before = this.proposals.get(groupId) ?? initialProposalsState();
      this.proposals.set(groupId, evolveProposals(before, e as Parameters<typeof evolveProposals>[1]));
      return;
    }
    if (data.proposal_id !== undefined && !this.executed.has(data.proposal_id)) {
      // Made with its execution: checked under the policy in force before it (applied after the check).
      this.awaiting.set(data.proposal_id, [...(this.awaiting.get(data.proposal_id) ?? []), event]);
      return;
    }
    if (
      data.proposal_id === undefined &&
      groupId !== undefined &&
      this.governed.has(groupId) &&
      ALWAYS_WIDENING.has(e.type) &&
      !narrowCase(e.type, e.data as { type?: number; agent_id?: string })
    )
      this.find(
        event,
        null,
        'no_proposal',
        `${e.type} widens what agents may spend, and no proposal made it`,
      );
    this.apply(event);
  }

  /** The group's governance after one of its events (members, policy, creation). */
  private apply(event: Observed): void {
    const e = event as unknown as DomainEvent;
    const groupId = (e.data as { group_id?: string }).group_id;
    if (groupId === undefined) return;
    this.governance.set(
      groupId,
      evolveGovernance(this.governance.get(groupId) ?? initialGovernanceState(), e),
    );
  }

  result(): GovernanceProof {
    for (const [proposalId, changes] of this.awaiting)
      for (const change of changes)
        this.find(
          change,
          proposalId,
          'not_executed',
          `${change.type} names proposal ${proposalId}, which did not execute with its quorum`,
        );
    this.awaiting.clear();
    return this.report;
  }

  private check(event: Observed, groupId: string): void {
    this.report.checked++;
    const d = event.data as { proposal_id: string; signers: string[] };
    const proof = this.proof(groupId, d);
    // Its own changes, checked with it under the policy before them, take effect now.
    if (proof === undefined) {
      this.executed.add(d.proposal_id);
      for (const change of this.awaiting.get(d.proposal_id) ?? []) this.apply(change);
      this.awaiting.delete(d.proposal_id);
    } else {
      this.find(event, d.proposal_id, proof[0], proof[1]);
      for (const change of this.awaiting.get(d.proposal_id) ?? []) this.apply(change);
    }
  }

  /** What is wrong with an execution, or nothing. */
  private proof(
    groupId: string,
    d: { proposal_id: string; signers: string[] },
  ): [GovernanceFinding['reason'], string] | undefined {
    const record = this.proposals.get(groupId)?.proposals.get(d.proposal_id);
    if (!record) return ['unknown_proposal', `no proposal ${d.proposal_id} was made in the log`];
    const message = proposalMessage(record.proposed);
    if (message !== record.proposed.message)
      return ['message_differs', 'the message signed is not what the proposal’s fields say'];
    const governance = this.governance.get(groupId) ?? initialGovernanceState();
    const valid = [...new Set(d.signers)].filter((wallet) => {
      const signed = record.signatures.get(wallet);
      return (
        roleOf(governance, wallet) === 'admin' &&
        signed !== undefined &&
        verifySignature(wallet, message, signed.signature)
      );
    });
    const { quorum } = governance.policy;
    if (valid.length < quorum)
      return [
        'no_quorum',
        `${valid.length} valid admin signature${valid.length === 1 ? '' : 's'} of the ${quorum} the policy then in force asked`,
      ];
    return undefined;
  }

  private find(
    event: Observed,
    proposalId: string | null,
    reason: GovernanceFinding['reason'],
    message: string,
  ) {
    this.report.invalid.push({
      proposal_id: proposalId,
      event_id: event.id,
      type: event.type,
      reason,
      message,
    });
  }
}
