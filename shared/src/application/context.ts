/**
 * What every capability needs: the ports, the repositories over the event store, the key vault, the
 * clock. Built once per process by its entry point.
 */
import type { LocalChain, Chain } from '../chain/port';
import { ComputeBudget } from '../chain/compute-budget';
import { DEFAULT_COMPUTE_BUDGET } from '../domain/priority-fee';
import type { EventStore } from '../event-store/port';
import { reportingAppends } from '../event-store/appends';
import { tracedAppends } from '../tracing/traced-store';
import { agentFold, type AgentState } from '../domain/agent';
import { budgetFold, type BudgetState } from '../domain/budget';
import type {
  AgentEvent,
  ApprovalEvent,
  BudgetEvent,
  GroupEvent,
  GroupSpendsEvent,
  ProposalEvent,
} from '../domain/events';
import { groupSpendsFold, type GroupSpendsState } from '../domain/group-limits';
import { approvalsFold, type ApprovalsState } from '../domain/approval';
import { proposalsFold, type ProposalsState } from '../domain/proposal';
import { groupFold, type GroupState } from '../domain/group';
import type { IdempotencyRecord } from '../domain/idempotency';
import { idempotencyFold, type IdempotencyEvent } from '../domain/idempotency-events';
import type { Limits } from '../domain/limits';
import type { KeyVault } from './credentials';
import { Repository } from './repository';
import { Wallets } from './wallets';
import type { Aggregator } from '../aggregator/port';
import type { LendingVenue } from '../venues/port';
import type { ResourceAnswer, ResourceRequest } from '../x402/port';
import type { Resolver } from '../net/address-guard';

export interface Settings {
  /** The symbol of the default base token of new groups (limits are denominated in it). */
  baseSymbol: string;
  /** Limits a new group starts with. */
  defaultLimits: Limits;
  /** The swap aggregator, allow-listed in every new group. */
  aggregator: string;
  /** How long an invitation stays valid. */
  invitationTtlMs: number;
  /** How long a request waits for its intent's outcome before answering idempotency_in_progress. */
  outcomeTimeoutMs: number;
}

export interface Context {
  store: EventStore;
  chain: Chain | LocalChain;
  vault: KeyVault;
  settings: Settings;
  now(): number;
  groups: Repository<GroupState, GroupEvent>;
  agents: Repository<AgentState, AgentEvent>;
  budgets: Repository<BudgetState, BudgetEvent>;
  /** What each group with limits of its own has in their windows (`group-spends-<group_id>`). */
  groupSpends: Repository<GroupSpendsState, GroupSpendsEvent>;
  idempotency: Repository<IdempotencyRecord | undefined, IdempotencyEvent>;
  /** Each group's held spends and their approvals (`approvals-<group_id>`). */
  approvals: Repository<ApprovalsState, ApprovalEvent>;
  /** Each group's governance proposals (`proposals-<group_id>`). */
  proposals: Repository<ProposalsState, ProposalEvent>;
  wallets: Wallets;
  /** The swap aggregator: quotes (valuing other tokens, swaps), and the executor builds swaps with it. */
  aggregator?: Aggregator;
  /** The lending venues deposits and withdrawals go to (GET /api/v1/venues lists them). */
  venues: readonly LendingVenue[];
  /** x402 payments: the guarded client of paid resources, and the network (CAIP-2) the service pays on. */
  x402?: { resources: ResourceFetcher; network: string };
  /**
   * The compute-unit price and limit put in front of every transaction the service sends (PRIORITY_FEE
   * and companions): the executor's spends and the operator's emergency sweeps.
   */
  computeBudget: ComputeBudget;
  /**
   * What a webhook's URL is held to (webhooks/subscriptions.ts `checkWebhookUrl`): in the processes
   * that register webhooks (the API's); a process without it registers none.
   */
  webhookUrls?: UrlPolicy;
}

/** The rules of the addresses webhooks are sent to: public ones only, but for the hosts opened. */
export interface UrlPolicy {
  /** How a host's addresses are found (the process wires the system resolver). */
  resolve: Resolver;
  /**
   * Hosts a URL may reach although they are not public (WEBHOOK_ALLOWED_PRIVATE_HOSTS): `host` (every
   * port) or `host:port` (that port only).
   */
  allowedPrivateHosts?: readonly string[];
}

/** Requests to x402 resources (x402/resource.ts's ResourceClient). */
export interface ResourceFetcher {
  request(req: ResourceRequest, payment?: string): Promise<ResourceAnswer>;
}

export function createContext(deps: {
  store: EventStore;
  chain: Chain | LocalChain;
  vault: KeyVault;
  settings: Settings;
  now?: () => number;
  /** This process is the only writer (the embedded default): repositories trust their caches. */
  singleWriter?: boolean;
  aggregator?: Aggregator;
  venues?: readonly LendingVenue[];
  x402?: Context['x402'];
  computeBudget?: ComputeBudget;
  webhookUrls?: UrlPolicy;
}): Context {
  const single = deps.singleWriter ?? false;
  // Every append reports where it landed to the work it ran for (collectAppends), and is traced.
  const store = reportingAppends(tracedAppends(deps.store));
  return {
    store,
    chain: deps.chain,
    vault: deps.vault,
    settings: deps.settings,
    now: deps.now ?? Date.now,
    groups: new Repository(store, groupFold, 50_000, single),
    agents: new Repository(store, agentFold, 50_000, single),
    budgets: new Repository(store, budgetFold, 50_000, single),
    groupSpends: new Repository(store, groupSpendsFold, 10_000, single),
    idempotency: new Repository(store, idempotencyFold, 50_000, single),
    approvals: new Repository(store, approvalsFold, 50_000, single),
    proposals: new Repository(store, proposalsFold, 10_000, single),
    wallets: new Wallets(store, deps.vault),
    ...(deps.aggregator && { aggregator: deps.aggregator }),
    venues: deps.venues ?? [],
    ...(deps.x402 && { x402: deps.x402 }),
    computeBudget: deps.computeBudget ?? new ComputeBudget(DEFAULT_COMPUTE_BUDGET),
    ...(deps.webhookUrls && { webhookUrls: deps.webhookUrls }),
  };
}

export const isLocalChain = (chain: Chain | LocalChain): chain is LocalChain => 'mintTo' in chain;
