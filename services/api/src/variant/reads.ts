/**
 * GET /v1/balance, /v1/limits, /v1/history: the same agent views and queries as the primary's state
 * endpoints (with the same wait for the agent's own writes: state/freshness.ts), answered in the
 * variant's shapes. The history cursor is opaque to the caller: the
 * position (confirmation time, signature) of the last entry returned, base64url-encoded JSON; the
 * next page starts strictly after it (projections' historyPage), so paging never repeats or skips an
 * entry while new operations arrive at the newest end.
 */
import Big from 'big.js';
import {
  VARIANT_STATE,
  ata,
  resolveToken,
  streams,
  validationError,
  type VariantBalanceQuery,
  type VariantHistoryQuery,
} from '@tokenops/shared';
import { balancesOf, historyPage, limitsOf, type HistoryPosition } from '@tokenops/projections';
import type { ApiDeps } from '../deps';
import { authenticateAgent } from '../http/auth';
import { defineRoute, type Route } from '../http/operations';
import { showOwnWrites } from '../state/freshness';

export const encodeCursor = (p: HistoryPosition): string =>
  Buffer.from(JSON.stringify([p.at, p.tx_sig]), 'utf8').toString('base64url');

export function decodeCursor(cursor: string): HistoryPosition {
  try {
    const [at, tx_sig] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(at) && (at as number) >= 0 && typeof tx_sig === 'string' && tx_sig.length > 0)
      return { at: at as number, tx_sig };
  } catch {
    // not ours: refused below
  }
  throw validationError([{ path: '/cursor', issue: 'is not a cursor this service gave (next_cursor)' }]);
}

const since = (iso: string | undefined): number | undefined =>
  iso === undefined ? undefined : Date.parse(iso);

export function variantReadRoutes(deps: ApiDeps): Route[] {
  const rows = VARIANT_STATE.operations;
  return [
    defineRoute(rows.getLimits, async ({ req, res, reply }) => {
      const { view } = await authenticateAgent(req, deps);
      await showOwnWrites(deps, res, view.agent_id);
      const l = await limitsOf(deps.views, view, deps.ctx.now());
      reply({
        per_tx_limit: l.per_tx_limit,
        daily_limit: l.daily_limit,
        hourly_tx_cap: l.hourly_tx_cap,
        spent_today: l.spent_today,
        remaining_today: l.daily_remaining,
        hourly_count: l.hourly_count,
        remaining_hourly: l.hourly_tx_remaining,
      });
    }),
    defineRoute(rows.getBalance, async ({ req, res, query: queryOf, reply }) => {
      const { view } = await authenticateAgent(req, deps);
      const query = queryOf<VariantBalanceQuery>();
      const { state: group } = await deps.ctx.groups.load(streams.group(view.group_id));
      const token = resolveToken(deps.ctx.chain.tokens, query.mint, group.baseMint);
      await showOwnWrites(deps, res, view.agent_id);
      const balances = await balancesOf(deps.views, view.agent_id, [token]);
      reply({
        mint: token.mint,
        balance: balances[token.symbol] ?? new Big(0),
        associated_token_account: await ata(view.agent_id, token.mint),
      });
    }),
    defineRoute(rows.getHistory, async ({ req, res, query: queryOf, reply }) => {
      const { view } = await authenticateAgent(req, deps);
      const query = queryOf<VariantHistoryQuery & { limit: number }>();
      const from = since(query.since);
      const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      await showOwnWrites(deps, res, view.agent_id);
      const page = await historyPage(deps.views, view.agent_id, {
        limit: query.limit,
        ...(before && { before }),
        ...(from !== undefined && { since: from }),
        ...(query.type !== undefined && { actions: [query.type] }),
      });
      const last = page.entries[page.entries.length - 1];
      reply({
        items: page.entries.map((e) => ({
          type: e.action,
          tx_signature: e.tx_sig,
          amount: e.amount,
          recipient: e.to ?? '',
          memo: e.memo ?? null,
          fee: e.protocol_fee ?? 0,
          confirmed_at: new Date(e.at).toISOString(),
        })),
        next_cursor: page.more && last ? encodeCursor({ at: last.at, tx_sig: last.tx_sig }) : null,
      });
    }),
  ];
}
