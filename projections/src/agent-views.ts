/**
 * The agent views: what the state endpoints read, built from the log. One projection, keyed by agent:
 *
 *   agent:<id>          {agent_id, group_id, status, api_key_hash, limits}   (auth of reads, limits)
 *   window:<id>         sorted set: member "<intent id>|<value>|<spends>", score the time accepted
 *   intent:<intent id>  the accepted intent, until it settles (the window member, the history entry)
 *   history:<id>        sorted set: member a history entry (JSON), score its time; the newest 100 kept
 *   balance:<id>        {mint: base units} from payments in and transfers confirmed
 *
 * `project` is pure but for reading the views it already wrote (through `get`); replaying the log
 * from the start into an empty store builds the same views.
 */
import Big from 'big.js';
import type {
  AgentRegistered,
  IntentData,
  LimitsData,
  RecordedEvent,
  ReadModelOp,
  Token,
} from '@tokenops/shared';
import { DAY_MS, HOUR_MS, toBaseUnits } from '@tokenops/shared';

export const PROJECTION = 'agent-views';

export const keys = {
  agent: (id: string) => `agent:${id}`,
  window: (id: string) => `window:${id}`,
  intent: (id: string) => `intent:${id}`,
  history: (id: string) => `history:${id}`,
  balance: (id: string) => `balance:${id}`,
};

export interface AgentView {
  agent_id: string;
  group_id: string;
  status: 'active' | 'revoked';
  api_key_hash: string;
  limits: LimitsData;
}

export interface HistoryEntryView {
  tx_sig: string;
  action: 'transfer' | 'swap';
  amount: number;
  timestamp: number;
  memo?: string;
  net_amount?: number;
  protocol_fee?: number;
  task_id?: string;
  to?: string;
  token?: string;
}

type Balances = Record<string, string>;

interface Reader {
  get<T>(key: string): Promise<T | undefined>;
}

const member = (i: IntentData) => `${i.intent_id}|${i.value}|${i.spends ? 1 : 0}`;

export async function project(
  event: RecordedEvent,
  views: Reader,
  tokens: readonly Token[],
): Promise<ReadModelOp[]> {
  const decimals = (mint: string) => tokens.find((t) => t.mint === mint)?.decimals ?? 6;
  const credit = async (agentId: string, mint: string, amount: Big, sign: 1 | -1): Promise<ReadModelOp[]> => {
    const balances = (await views.get<Balances>(keys.balance(agentId))) ?? {};
    const units = BigInt(balances[mint] ?? '0') + BigInt(sign) * toBaseUnits(amount, decimals(mint));
    return [
      {
        op: 'set',
        key: keys.balance(agentId),
        value: { ...balances, [mint]: String(units < 0n ? 0n : units) },
      },
    ];
  };
  const updateAgent = async (id: string, change: Partial<AgentView>): Promise<ReadModelOp[]> => {
    const view = await views.get<AgentView>(keys.agent(id));
    return view ? [{ op: 'set', key: keys.agent(id), value: { ...view, ...change } }] : [];
  };

  switch (event.type) {
    case 'agent.registered': {
      const d = event.data as AgentRegistered['data'];
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
    case 'agent.limits_changed': {
      const d = event.data as { agent_id: string; limits: LimitsData };
      return updateAgent(d.agent_id, { limits: d.limits });
    }
    case 'agent.api_key_rotated': {
      const d = event.data as { agent_id: string; api_key_hash: string };
      return updateAgent(d.agent_id, { api_key_hash: d.api_key_hash });
    }
    case 'agent.revoked':
    case 'agent.emergency_withdraw':
      return updateAgent((event.data as { agent_id: string }).agent_id, { status: 'revoked' });
    case 'intent.accepted': {
      const i = event.data as IntentData;
      return [
        { op: 'set', key: keys.intent(i.intent_id), value: i },
        { op: 'zadd', key: keys.window(i.agent_id), score: i.at, member: member(i) },
        // What can no longer count in any window goes (an hour of margin for clocks that disagree).
        { op: 'zremUpTo', key: keys.window(i.agent_id), max: i.at - DAY_MS - HOUR_MS },
      ];
    }
    case 'intent.failed': {
      const d = event.data as { intent_id: string; agent_id: string };
      const i = await views.get<IntentData>(keys.intent(d.intent_id));
      if (!i) return [];
      return [
        { op: 'zrem', key: keys.window(d.agent_id), member: member(i) },
        { op: 'del', key: keys.intent(d.intent_id) },
      ];
    }
    case 'intent.confirmed': {
      const d = event.data as { intent_id: string; agent_id: string; tx_sig: string; at: number };
      const i = await views.get<IntentData>(keys.intent(d.intent_id));
      if (!i) return [];
      const ops: ReadModelOp[] = [{ op: 'del', key: keys.intent(d.intent_id) }];
      if (i.action === 'transfer' || i.action === 'swap') {
        const entry: HistoryEntryView = {
          tx_sig: d.tx_sig,
          action: i.action,
          amount: Number(i.amount),
          timestamp: Math.floor(d.at / 1000),
          ...(i.memo !== undefined && { memo: i.memo }),
          ...(i.net_amount !== undefined && { net_amount: Number(i.net_amount) }),
          ...(i.protocol_fee !== undefined && { protocol_fee: Number(i.protocol_fee) }),
          ...(i.task_id !== undefined && { task_id: i.task_id }),
          to: i.counterparty,
          token: tokens.find((t) => t.mint === i.mint)?.symbol ?? i.mint,
        };
        ops.push(
          { op: 'zadd', key: keys.history(i.agent_id), score: d.at, member: JSON.stringify(entry) },
          { op: 'ztrim', key: keys.history(i.agent_id), keep: 100 },
        );
      }
      ops.push(...(await credit(i.agent_id, i.mint, new Big(i.amount), -1)));
      // A transfer to another agent of ours credits it with what it received.
      if (i.action === 'transfer' && (await views.get<AgentView>(keys.agent(i.counterparty)))) {
        ops.push(...(await credit(i.counterparty, i.mint, new Big(i.net_amount ?? i.amount), 1)));
      }
      return ops;
    }
    case 'payment.received': {
      const d = event.data as { agent_id: string; mint: string; amount: string };
      return credit(d.agent_id, d.mint, new Big(d.amount), 1);
    }
    default:
      return [];
  }
}
