/**
 * A group's activity as the operator console shows it: each agent's use of its limits right now (the
 * same windows the decision uses: domain/agent.ts), and confirmed spends over time by agent and by
 * recipient, read from the group's log (audit.ts). Amounts in the base token, exact (Big), as text.
 */
import Big from 'big.js';
import { opsInHour, spentInDay } from '../domain/agent';
import { streams } from '../domain/events';
import { DAY_MS, HOUR_MS } from '../domain/time';
import { amountText } from '../money';
import { auditScope, readGroupLog } from './audit';
import type { Context } from './context';
import { ownedGroup } from './groups';

/** Each agent of the group: spent in the last 24 hours, operations in the last hour, latest operation. */
export async function groupUsage(ctx: Context, wallet: string, groupId: string) {
  const group = await ownedGroup(ctx, wallet, groupId, 'read');
  const now = ctx.now();
  return Promise.all(
    [...group.invitations.values()].map(async (invitation) => {
      const { state } = await ctx.agents.load(streams.agent(invitation.agentId));
      const latest = state.lastOperationAt;
      return {
        agent_wallet_pda: invitation.agentId,
        spent_today: amountText(spentInDay(state, now)),
        hourly_count: opsInHour(state, now),
        last_activity_at: latest === undefined ? null : new Date(latest).toISOString(),
      };
    }),
  );
}

/** The windows of the spend chart: their span and the width of a bucket. */
export const SPEND_WINDOWS = {
  '24h': { span: DAY_MS, bucket: HOUR_MS },
  '7d': { span: 7 * DAY_MS, bucket: 6 * HOUR_MS },
} as const;
export type SpendWindow = keyof typeof SPEND_WINDOWS;

/**
 * Confirmed spends in the window, by agent and by recipient, one amount a bucket: each confirmed
 * intent counts its value in the base token (as decided) at the time it was confirmed.
 */
export async function spendOverTime(ctx: Context, wallet: string, groupId: string, window: SpendWindow) {
  await ownedGroup(ctx, wallet, groupId, 'read');
  const scope = await auditScope(ctx, wallet, groupId);
  const { span, bucket } = SPEND_WINDOWS[window];
  const end = Math.ceil((ctx.now() + 1) / bucket) * bucket;
  const start = end - span;
  const count = span / bucket;
  const accepted = new Map<string, { agent: string; recipient: string; value: string }>();
  const byAgent = new Map<string, Big[]>();
  const byRecipient = new Map<string, Big[]>();
  const add = (series: Map<string, Big[]>, key: string, index: number, value: string) => {
    const amounts = series.get(key) ?? Array.from({ length: count }, () => new Big(0));
    amounts[index] = amounts[index]!.plus(value);
    series.set(key, amounts);
  };
  // Accepted a day before the window at the most (an intent settles within minutes).
  const filter = { from: start - DAY_MS, types: ['intent.accepted', 'intent.confirmed'] };
  await readGroupLog(ctx.store, scope, filter, {
    onEvent(e) {
      const d = e.data as Record<string, unknown>;
      const id = String(d.intent_id);
      if (e.type === 'intent.accepted') {
        if (d.spends === true)
          accepted.set(id, {
            agent: String(d.agent_id),
            recipient: String(d.counterparty),
            value: String(d.value),
          });
        return true;
      }
      const spend = accepted.get(id);
      const at = typeof d.at === 'number' ? d.at : Date.parse(e.recorded_at);
      if (spend && at >= start && at < end) {
        const index = Math.floor((at - start) / bucket);
        add(byAgent, spend.agent, index, spend.value);
        add(byRecipient, spend.recipient, index, spend.value);
      }
      return true;
    },
  });
  const series = (map: Map<string, Big[]>) =>
    [...map.entries()].map(([key, amounts]) => ({
      key,
      total: amountText(amounts.reduce((a, b) => a.plus(b), new Big(0))),
      amounts: amounts.map(amountText),
    }));
  return {
    window,
    bucket_seconds: bucket / 1000,
    buckets: Array.from({ length: count }, (_, i) => new Date(start + i * bucket).toISOString()),
    agents: series(byAgent),
    recipients: series(byRecipient),
  };
}
