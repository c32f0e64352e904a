/** The reads the state endpoints answer from, over the agent views. */
import Big from 'big.js';
import {
  DAY_MS,
  HOUR_MS,
  fromBaseUnits,
  sumAmountTexts,
  type Action,
  type ReadModelStore,
  type Token,
} from '@tokenops/shared';
import { keys, spentOf, type AgentView, type HistoryEntryView } from './agent-views';

export interface LimitsView {
  daily_limit: Big;
  daily_remaining: Big;
  per_tx_limit: Big;
  hourly_tx_cap: number;
  hourly_tx_remaining: number;
  group_id: string;
  /** What the daily window holds (value) and the hourly one (operations): the variant reports them. */
  spent_today: Big;
  hourly_count: number;
}

export async function agentView(views: ReadModelStore, agentId: string): Promise<AgentView | undefined> {
  return views.get<AgentView>(keys.agent(agentId));
}

/** The groups a wallet is a member of (id, and when it became one in ms), in that order. */
export async function groupsOfMember(
  views: ReadModelStore,
  wallet: string,
): Promise<{ group_id: string; created_at: number }[]> {
  return (await views.range(keys.groups(wallet), 0, Infinity)).map((m) => ({
    group_id: m.member,
    created_at: m.score,
  }));
}

/** Limits and headroom now: the window's members accepted in the last 24 hours (value) and 60 minutes (count). */
export async function limitsOf(views: ReadModelStore, agent: AgentView, now: number): Promise<LimitsView> {
  const recent = await views.range(keys.window(agent.agent_id), now - DAY_MS + 1, Infinity);
  const spends: string[] = [];
  let ops = 0;
  const hourAgo = now - HOUR_MS;
  for (const { member, score } of recent) {
    const value = spentOf(member);
    if (value !== undefined) spends.push(value);
    if (score > hourAgo) ops += 1;
  }
  const spent = sumAmountTexts(spends);
  const daily = new Big(agent.limits.daily_limit);
  return {
    daily_limit: daily,
    daily_remaining: spent.gte(daily) ? new Big(0) : daily.minus(spent),
    per_tx_limit: new Big(agent.limits.per_tx_limit),
    hourly_tx_cap: agent.limits.hourly_tx_cap,
    hourly_tx_remaining: Math.max(0, agent.limits.hourly_tx_cap - ops),
    group_id: agent.group_id,
    spent_today: spent,
    hourly_count: ops,
  };
}

/** Balances by symbol, for every registry token (0 where none). */
export async function balancesOf(
  views: ReadModelStore,
  agentId: string,
  tokens: readonly Token[],
): Promise<Record<string, Big>> {
  const units = (await views.get<Record<string, string>>(keys.balance(agentId))) ?? {};
  return Object.fromEntries(
    tokens.map((t) => [t.symbol, fromBaseUnits(BigInt(units[t.mint] ?? '0'), t.decimals)]),
  );
}

/** The confirmed intents of the last 24 hours of the given actions (every action when absent), newest first. */
export async function historyOf(
  views: ReadModelStore,
  agentId: string,
  limit: number,
  now: number,
  actions?: readonly Action[],
): Promise<HistoryEntryView[]> {
  const entries = await views.range(keys.history(agentId), now - DAY_MS + 1, Infinity, {
    reverse: true,
    ...(!actions && { limit }),
  });
  const all = entries.map((e) => JSON.parse(e.member) as HistoryEntryView);
  return (actions ? all.filter((e) => actions.includes(e.action)) : all).slice(0, limit);
}

/** Where a history page ended: the last entry's confirmation time (ms) and signature. */
export interface HistoryPosition {
  at: number;
  tx_sig: string;
}

/**
 * One page of the history kept (every action, newest first), after `before` when given: entries are
 * ordered by (confirmation time, signature), both descending, so a position names one place in that
 * order and the next page starts strictly after it. New entries arrive at the newest end: paging on
 * from a position never repeats or skips one. `since` (ms) keeps entries confirmed at or after it.
 */
export async function historyPage(
  views: ReadModelStore,
  agentId: string,
  options: { limit: number; before?: HistoryPosition; since?: number; actions?: readonly Action[] },
): Promise<{ entries: (HistoryEntryView & { at: number })[]; more: boolean }> {
  const { before, actions } = options;
  const kept = await views.range(keys.history(agentId), options.since ?? 0, before?.at ?? Infinity);
  const ordered = kept
    .map((e) => ({ ...(JSON.parse(e.member) as HistoryEntryView), at: e.score }))
    .sort((a, b) => b.at - a.at || (a.tx_sig < b.tx_sig ? 1 : a.tx_sig > b.tx_sig ? -1 : 0))
    .filter((e) => !before || e.at < before.at || (e.at === before.at && e.tx_sig < before.tx_sig))
    .filter((e) => !actions || actions.includes(e.action));
  return { entries: ordered.slice(0, options.limit), more: ordered.length > options.limit };
}
