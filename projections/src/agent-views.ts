/**
 * The agent views: what the state endpoints read, built from the log. One projection, keyed by agent:
 *
 *   agent:<id>          {agent_id, group_id, status, api_key_hash, limits}   (auth of reads, limits)
 *   window:<id>         sorted set: member "<intent id>|<value>|<spends>", score the time accepted
 *   intent:<intent id>  the accepted intent, until it settles (the window member, the history entry)
 *   history:<id>        sorted set: member a history entry (JSON), score its time; the newest 200 kept
 *                       (every action: the primary contract lists transfers and swaps)
 *   balance:<id>        {mint: base units} from payments in, spends confirmed and emergency drains
 *   groups:<wallet>     sorted set: member a group id the wallet is a member of, score the time it
 *                       became one (its creation, for the creator): the list of a member's groups
 *
 * `project` is pure but for reading the views it already wrote (through `get`); replaying the log
 * from the start into an empty store builds the same views.
 */
import Big from 'big.js';
import type {
  Action,
  HistoryEntry,
  IntentData,
  Known,
  LimitsData,
  RecordedEvent,
  ReadModelOp,
  Shape,
  Token,
} from '@tokenops/shared';
import { DAY_MS, HOUR_MS, decodeEvent, toBaseUnits, tokenByMint } from '@tokenops/shared';

export const PROJECTION = 'agent-views';

export const keys = {
  agent: (id: string) => `agent:${id}`,
  window: (id: string) => `window:${id}`,
  intent: (id: string) => `intent:${id}`,
  history: (id: string) => `history:${id}`,
  balance: (id: string) => `balance:${id}`,
  groups: (wallet: string) => `groups:${wallet}`,
};

export interface AgentView {
  agent_id: string;
  group_id: string;
  status: 'active' | 'revoked';
  api_key_hash: string;
  limits: LimitsData;
}

/**
 * A history entry as kept: the contract's (HistoryEntry), for every action (the route answers those the
 * contract lists), and what came back to the agent (swap output, receipt tokens, underlying) and in
 * which token.
 */
export type HistoryEntryView = Omit<HistoryEntryShape, 'action'> & {
  action: Action;
  received_amount?: number;
  received_token?: string;
};

type HistoryEntryShape = Known<Shape<typeof HistoryEntry>>;
type Balances = Record<string, string>;

interface Reader {
  get<T>(key: string): Promise<T | undefined>;
}

const member = (i: IntentData) => `${i.intent_id}|${i.value}|${i.spends ? 1 : 0}`;

const SPENDS = '1'.charCodeAt(0);

/**
 * What a window member (`member`) spent: its value when it spends, undefined otherwise. Read without
 * a split: a limits read goes over a day of them.
 */
export function spentOf(windowMember: string): string | undefined {
  const end = windowMember.lastIndexOf('|');
  return windowMember.charCodeAt(end + 1) === SPENDS
    ? windowMember.slice(windowMember.indexOf('|') + 1, end)
    : undefined;
}

export async function project(
  event: RecordedEvent,
  views: Reader,
  tokens: readonly Token[],
): Promise<ReadModelOp[]> {
  const decimals = (mint: string) => tokenByMint(tokens, mint)?.decimals ?? 6;
  /** Several balance changes of one agent, each over the last (one write of the result). */
  const creditAll = async (agentId: string, moves: [string, Big, 1 | -1][]): Promise<ReadModelOp[]> => {
    const balances = { ...((await views.get<Balances>(keys.balance(agentId))) ?? {}) };
    for (const [mint, amount, sign] of moves) {
      const units = BigInt(balances[mint] ?? '0') + BigInt(sign) * toBaseUnits(amount, decimals(mint));
      balances[mint] = String(units < 0n ? 0n : units);
    }
    return moves.length > 0 ? [{ op: 'set', key: keys.balance(agentId), value: balances }] : [];
  };
  const credit = (agentId: string, mint: string, amount: Big, sign: 1 | -1) =>
    creditAll(agentId, [[mint, amount, sign]]);
  const updateAgent = async (id: string, change: Partial<AgentView>): Promise<ReadModelOp[]> => {
    const view = await views.get<AgentView>(keys.agent(id));
    return view ? [{ op: 'set', key: keys.agent(id), value: { ...view, ...change } }] : [];
  };

  const e = decodeEvent(event);
  if (!e) return [];
  const symbol = (mint: string) => tokenByMint(tokens, mint)?.symbol ?? mint;
  switch (e.type) {
    case 'group.created':
      return [
        { op: 'zadd', key: keys.groups(e.data.owner_wallet), score: e.data.at, member: e.data.group_id },
      ];
    case 'member.added':
      return [{ op: 'zadd', key: keys.groups(e.data.wallet), score: e.data.at, member: e.data.group_id }];
    case 'member.removed':
      return [{ op: 'zrem', key: keys.groups(e.data.wallet), member: e.data.group_id }];
    case 'agent.registered': {
      const d = e.data;
      return [
        {
          op: 'set',
          key: keys.agent(d.agent_id),
          value: {
            agent_id: d.agent_id,
            group_id: d.group_id,
            status: 'active',
            api_key_hash: d.api_key_hash,
            limits: d.limits,
          } satisfies AgentView,
        },
      ];
    }
    case 'agent.limits_changed':
      return updateAgent(e.data.agent_id, { limits: e.data.limits });
    case 'agent.api_key_rotated':
    case 'agent.api_key_issued':
      return updateAgent(e.data.agent_id, { api_key_hash: e.data.api_key_hash });
    case 'agent.revoked':
      return updateAgent(e.data.agent_id, { status: 'revoked' });
    case 'agent.emergency_withdraw': {
      const d = e.data;
      const ops = await updateAgent(d.agent_id, { status: 'revoked' });
      // Each step reads the balances the previous one wrote: apply them in turn.
      const moves: [string, Big, 1 | -1][] = [
        ...d.redeemed.flatMap((r): [string, Big, 1 | -1][] => [
          [r.receipt_mint, new Big(r.receipt_amount), -1],
          [r.mint, new Big(r.amount), 1],
        ]),
        ...d.moved.map((m): [string, Big, 1 | -1] => [m.mint, new Big(m.amount), -1]),
      ];
      return [...ops, ...(await creditAll(d.agent_id, moves))];
    }
    case 'intent.accepted': {
      const i = e.data;
      return [
        { op: 'set', key: keys.intent(i.intent_id), value: i },
        { op: 'zadd', key: keys.window(i.agent_id), score: i.at, member: member(i) },
        // What can no longer count in any window goes (an hour of margin for clocks that disagree).
        { op: 'zremUpTo', key: keys.window(i.agent_id), max: i.at - DAY_MS - HOUR_MS },
      ];
    }
    case 'intent.failed': {
      const d = e.data;
      const i = await views.get<IntentData>(keys.intent(d.intent_id));
      if (!i) return [];
      return [
        { op: 'zrem', key: keys.window(d.agent_id), member: member(i) },
        { op: 'del', key: keys.intent(d.intent_id) },
      ];
    }
    case 'intent.confirmed': {
      const d = e.data;
      const i = await views.get<IntentData>(keys.intent(d.intent_id));
      if (!i) return [];
      const received =
        d.received_amount !== undefined && d.received_mint !== undefined
          ? { amount: new Big(d.received_amount), mint: d.received_mint }
          : undefined;
      const entry: HistoryEntryView = {
        tx_sig: d.tx_sig,
        action: i.action,
        amount: Number(i.amount),
        timestamp: Math.floor(d.at / 1000),
        ...(i.action === 'transfer' && {
          ...(i.memo !== undefined && { memo: i.memo }),
          net_amount: Number(i.net_amount),
          protocol_fee: Number(i.protocol_fee),
        }),
        ...(i.task_id !== undefined && { task_id: i.task_id }),
        to: i.counterparty,
        token: symbol(i.mint),
        ...(received && { received_amount: Number(received.amount), received_token: symbol(received.mint) }),
      };
      const moves: [string, Big, 1 | -1][] = [[i.mint, new Big(i.amount), -1]];
      if (received) moves.push([received.mint, received.amount, 1]);
      const ops: ReadModelOp[] = [
        { op: 'del', key: keys.intent(d.intent_id) },
        { op: 'zadd', key: keys.history(i.agent_id), score: d.at, member: JSON.stringify(entry) },
        { op: 'ztrim', key: keys.history(i.agent_id), keep: HISTORY_KEPT },
        ...(await creditAll(i.agent_id, moves)),
      ];
      // A transfer to another agent of ours credits it with what it received.
      if (i.action === 'transfer' && (await views.get<AgentView>(keys.agent(i.counterparty)))) {
        ops.push(...(await credit(i.counterparty, i.mint, new Big(i.net_amount), 1)));
      }
      return ops;
    }
    case 'payment.received':
      return credit(e.data.agent_id, e.data.mint, new Big(e.data.amount), 1);
    default:
      return [];
  }
}

/** History entries kept per agent (of every action). */
export const HISTORY_KEPT = 200;
