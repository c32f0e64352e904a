/**
 * Fixtures for the given/when/then tests of the deciders: a group with one agent-to-agent pair, a
 * budgeted vendor (type 1), a lending venue and the aggregator (type 2), and agents with limits.
 */
import Big from 'big.js';
import bs58 from 'bs58';
import { createHash } from 'node:crypto';
import type { AgentEvent, BudgetEvent, GroupEvent } from '@tokenops/shared';
import { foldAgent, type AgentState } from '@tokenops/shared';
import { foldBudget, type BudgetState } from '@tokenops/shared';
import { foldGroup, type GroupState } from '@tokenops/shared';
import type { IntentCommand } from '@tokenops/shared';
import { secretDigest } from '@tokenops/shared';

/** A deterministic base58 address (32 bytes, 43-44 characters) for a name. */
export const address = (name: string): string => bs58.encode(createHash('sha256').update(name).digest());

export const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;

export const GROUP = 'group-1';
export const OWNER = address('owner');
export const BASE_MINT = address('usdc');
export const AGENT_A = address('agent-a');
export const AGENT_B = address('agent-b');
export const VENDOR = address('vendor');
export const VENUE = address('venue');
export const AGGREGATOR = address('aggregator');
export const STRANGER = address('stranger');
export const VENDOR_ENTRY = 'entry-vendor';
export const VENDOR_TTL_MS = 7 * 24 * 60 * MINUTE;

export const INVITE_SECRET = 'inv-secret-a';
export const API_KEY = 'key-a';

export interface LimitsFixture {
  per_tx_limit: string;
  daily_limit: string;
  hourly_tx_cap: number;
}
export const LIMITS: LimitsFixture = { per_tx_limit: '100', daily_limit: '1000', hourly_tx_cap: 10 };

export function groupEvents(opts: { vendorBudget?: string; at?: number } = {}): GroupEvent[] {
  const at = opts.at ?? T0;
  const g = { group_id: GROUP, at };
  const invite = (agent: string, n: number): GroupEvent[] => [
    {
      type: 'agent.invited',
      data: {
        ...g,
        agent_id: agent,
        invitation_hash: secretDigest(`${INVITE_SECRET}-${n}`),
        invitation_expires_at: at + 24 * 60 * MINUTE,
        limits: LIMITS,
      },
    },
    { type: 'whitelist.entry_added', data: { ...g, entry_id: `entry-agent-${n}`, address: agent, type: 0 } },
  ];
  return [
    {
      type: 'group.created',
      data: { ...g, owner_wallet: OWNER, base_mint: BASE_MINT, default_limits: LIMITS },
    },
    {
      type: 'whitelist.entry_added',
      data: { ...g, entry_id: 'entry-aggregator', address: AGGREGATOR, type: 2, label: 'aggregator' },
    },
    { type: 'whitelist.entry_added', data: { ...g, entry_id: 'entry-venue', address: VENUE, type: 2 } },
    {
      type: 'whitelist.entry_added',
      data: {
        ...g,
        entry_id: VENDOR_ENTRY,
        address: VENDOR,
        type: 1,
        label: 'vendor',
        approved_amount: opts.vendorBudget ?? '500',
        ttl_expires_at: at + VENDOR_TTL_MS,
      },
    },
    ...invite(AGENT_A, 1),
    ...invite(AGENT_B, 2),
  ];
}

export function registered(agent: string, limits: LimitsFixture = LIMITS, at = T0): AgentEvent {
  return {
    type: 'agent.registered',
    data: { agent_id: agent, group_id: GROUP, limits, api_key_hash: secretDigest(API_KEY), at },
  };
}

export const group = (events: GroupEvent[] = groupEvents()): GroupState => foldGroup(events);
export const agent = (events: AgentEvent[]): AgentState => foldAgent(events);
export const budget = (events: BudgetEvent[] = []): BudgetState => foldBudget(events);

let counter = 0;
/** A transfer command of `amount` base-token units to `to` at `now`. */
export function transfer(amount: string | number, overrides: Partial<IntentCommand> = {}): IntentCommand {
  counter += 1;
  return {
    intent_id: `intent-${counter}`,
    action: 'transfer',
    amount: new Big(amount),
    value: new Big(amount),
    mint: BASE_MINT,
    decimals: 6,
    counterparty: AGENT_B,
    now: T0,
    ...overrides,
  };
}

/** An intent.accepted + intent.confirmed pair for `value` at `at` (history for window tests). */
export function spent(value: string, at: number, action: IntentCommand['action'] = 'transfer'): AgentEvent[] {
  counter += 1;
  const intent_id = `past-${counter}`;
  return [accepted(intent_id, value, at, action), confirmed(intent_id, at)];
}

/** Agent A's intent.accepted of `value` base-token units (to agent B) at `at`: reserved until settled. */
export function accepted(
  intent_id: string,
  value: string,
  at: number,
  action: IntentCommand['action'] = 'transfer',
): AgentEvent {
  const common = {
    intent_id,
    agent_id: AGENT_A,
    group_id: GROUP,
    amount: value,
    mint: BASE_MINT,
    value,
    spends: action !== 'withdraw',
    counterparty: AGENT_B,
    entry_id: 'entry-agent-2',
    at,
  };
  return {
    type: 'intent.accepted',
    data:
      action === 'transfer'
        ? { ...common, action, protocol_fee: '0', net_amount: value }
        : action === 'swap'
          ? {
              ...common,
              action,
              params: {
                to_mint: BASE_MINT,
                minimum_amount_out: '0',
                slippage_bps: 50,
                quoted_amount_out: '0',
              },
            }
          : { ...common, action, params: {} },
  };
}

export const confirmed = (intent_id: string, at: number): AgentEvent => ({
  type: 'intent.confirmed',
  data: { intent_id, agent_id: AGENT_A, tx_sig: `sig-${intent_id}`, at },
});

export const failed = (intent_id: string, at: number): AgentEvent => ({
  type: 'intent.failed',
  data: { intent_id, agent_id: AGENT_A, code: 'insufficient_balance', message: 'low balance', at },
});

/** The executor's record of the transaction it signed for `intent_id`, before it submits it. */
export const submitting = (intent_id: string, at: number, signature = `sig-${intent_id}`): AgentEvent => ({
  type: 'intent.submitting',
  data: { intent_id, agent_id: AGENT_A, signature, wire: 'AQID', last_valid_block_height: '1234', at },
});
